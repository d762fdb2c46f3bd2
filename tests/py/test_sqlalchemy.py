"""SQLAlchemy 2 (psycopg 3 driver) against both servers: Engine start-up with default settings
(so the first connect runs the dialect's probes: version(), current_schema(), the isolation
level, standard_conforming_strings and the hstore TypeInfo query inside a savepoint), text()
queries with bound parameters, transactions, nested transactions (SAVEPOINT) and rollback.
Observations on PostgreSQL 15 and on the server under test must be equal. Anything that needs
a table is left out until threadgres has storage."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
import sqlalchemy as sa
from sqlalchemy import exc, text

from clientutil import differential


def _engine(s, **kw) -> sa.Engine:
    url = sa.engine.make_url(s.dsn).set(drivername="postgresql+psycopg")
    return sa.create_engine(url, connect_args={"sslmode": "disable", "connect_timeout": 10}, **kw)


def run_both(pg, server, observe, what="result"):
    def wrapped(s):
        engine = _engine(s)
        try:
            return observe(engine)
        finally:
            engine.dispose()
    return differential(pg, server, wrapped, what)


def _err(e: exc.DBAPIError):
    return type(e).__name__, type(e.orig).__name__, e.orig.sqlstate, str(e.orig).splitlines()[0]


def test_engine_first_connect(pg, server):
    def observe(engine):
        with engine.connect() as conn:
            d = conn.dialect
            return {
                "server_version_info": d.server_version_info[:1],
                "default_schema_name": d.default_schema_name,
                "default_isolation_level": d.default_isolation_level,
                "isolation_level": conn.get_isolation_level(),
                "backslash_escapes": d._backslash_escapes,
                "native_hstore": d.use_native_hstore,
                "has_hstore": conn.connection.dbapi_connection.adapters.types.get("hstore") is not None,
                "version_prefix": conn.execute(text("SELECT version()")).scalar().split(" ")[0],
                "in_transaction": conn.in_transaction(),
            }
    run_both(pg, server, observe)


def test_text_queries_with_parameters(pg, server):
    def observe(engine):
        out = []
        with engine.connect() as conn:
            r = conn.execute(text("SELECT :a + 1 AS r, CAST(:b AS text) AS t, :c AS untyped"),
                             {"a": 41, "b": "héllo", "c": "x"})
            out.append((list(r.keys()), [tuple(row) for row in r]))
            out.append(conn.execute(text("SELECT x, x * :m AS y FROM generate_series(1, :n) x"),
                                    {"n": 4, "m": 3}).all())
            out.append([dict(m) for m in conn.execute(
                text("SELECT CAST(:d AS numeric) AS d, CAST(:day AS date) AS day, CAST(:ts AS timestamptz) AS ts,"
                     " CAST(:flag AS boolean) AS flag, CAST(:none AS int) AS none, CAST(:raw AS bytea) AS raw"),
                {"d": Decimal("12.50"), "day": dt.date(2024, 2, 29),
                 "ts": dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc), "flag": True, "none": None,
                 "raw": b"\x00\xff"}).mappings()])
            out.append(conn.execute(text("SELECT CAST(:v AS int[]) AS arr"), {"v": [1, None, 3]}).scalar_one())
            out.append(conn.execute(text("SELECT 1 WHERE false")).scalar())
            # the same statement many times: psycopg prepares it server-side after 5 runs
            out.append([conn.execute(text("SELECT CAST(:i AS int) * 2"), {"i": i}).scalar() for i in range(8)])
            bound = text("SELECT :x AS x").bindparams(sa.bindparam("x", type_=sa.Integer))
            out.append(conn.execute(bound, {"x": 7}).one()._asdict())
            conn.rollback()
        return out
    run_both(pg, server, observe)


def test_transactions_and_savepoints(pg, server):
    def observe(engine):
        ev = []
        show = lambda c: c.execute(text("SHOW application_name")).scalar()  # noqa: E731
        with engine.connect() as conn:
            with conn.begin():
                conn.execute(text("SET LOCAL application_name = 'outer'"))
                sp = conn.begin_nested()
                conn.execute(text("SET LOCAL application_name = 'inner'"))
                ev.append(("in savepoint", show(conn), conn.in_nested_transaction()))
                sp.rollback()
                ev.append(("savepoint rolled back", show(conn), conn.in_nested_transaction()))
                with conn.begin_nested():
                    conn.execute(text("SET LOCAL application_name = 'released'"))
                ev.append(("savepoint released", show(conn)))
                try:
                    with conn.begin_nested():
                        conn.execute(text("SELECT 1 / CAST(:z AS int)"), {"z": 0})
                except exc.DBAPIError as e:
                    ev.append(("error in savepoint", _err(e)))
                ev.append(("after failed savepoint", show(conn), conn.in_transaction()))
            ev.append(("committed", show(conn), conn.in_transaction()))

            conn.execute(text("SET application_name = 'before rollback'"))
            conn.rollback()
            ev.append(("rolled back", show(conn)))
            conn.execute(text("SET application_name = 'committed'"))
            conn.commit()
            ev.append(("commit", show(conn)))

            try:
                conn.execute(text("SELECT nosuchcol"))
            except exc.DBAPIError as e:
                ev.append(("error", _err(e)))
            try:
                conn.execute(text("SELECT 1"))
            except exc.DBAPIError as e:
                ev.append(("in failed transaction", _err(e)))
            conn.rollback()
            ev.append(("recovered", conn.execute(text("SELECT 'ok'")).scalar()))
            conn.rollback()
        return ev
    run_both(pg, server, observe)


@pytest.mark.parametrize("level", ["REPEATABLE READ", "SERIALIZABLE", "AUTOCOMMIT"])
def test_isolation_levels(pg, server, level):
    def observe(engine):
        with engine.connect().execution_options(isolation_level=level) as conn:
            out = (conn.get_isolation_level(), conn.execute(text("SHOW transaction_isolation")).scalar())
            conn.rollback()
        with engine.connect() as conn:
            out += (conn.get_isolation_level(),)
            conn.rollback()
        return out
    run_both(pg, server, observe)


def test_pool_reuses_connection(pg, server):
    def observe(engine):
        pids = []
        for _ in range(3):
            with engine.connect() as conn:
                pids.append(conn.execute(text("SELECT pg_backend_pid()")).scalar())
                conn.execute(text("SET application_name = 'dirty'"))
                conn.rollback()
        return len(set(pids)), engine.pool.checkedout()
    run_both(pg, server, observe)
