"""psycopg 3 against both servers. Each test observes what the client sees
(values, types, statuses, exceptions) on PostgreSQL 15 and on the server under
test, and the observations must be equal; round trips are also checked against
the Python values sent."""

from __future__ import annotations

import datetime as dt
import threading
import time
from decimal import Decimal

import psycopg
import pytest
from psycopg import pq

from clientutil import differential

TZ2 = dt.timezone(dt.timedelta(hours=2))

VALUES = [
    ("int_small", 1),
    ("int_neg", -5),
    ("int_int4", 40000),
    ("int_int8", 2**40),
    ("float", 1.5),
    ("float_tenth", 0.1),
    ("decimal", Decimal("12.345")),
    ("decimal_neg_small", Decimal("-0.000123")),
    ("str", "text"),
    ("str_empty", ""),
    ("str_unicode", "ünïcødé ✓"),
    ("bytes", b"\x00\x01\xff"),
    ("bool_true", True),
    ("bool_false", False),
    ("none", None),
    ("date", dt.date(2024, 2, 29)),
    ("datetime_naive", dt.datetime(2024, 1, 2, 3, 4, 5, 123456)),
    ("datetime_utc", dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)),
    ("datetime_plus2", dt.datetime(2024, 7, 1, 12, 0, tzinfo=TZ2)),
    ("timedelta", dt.timedelta(days=1, seconds=5, microseconds=7)),
    ("list_int", [1, 2, 3]),
    ("list_str", ["a", "b c", None]),
    ("list_empty_typed", []),
]
# psycopg sends str lists and empty lists with OID 0 / as unknown: give the query a type
CASTS = {"list_str": "::text[]", "list_empty_typed": "::int[]"}


def _connect(s, **kw):
    return psycopg.connect(s.conninfo, connect_timeout=10, **kw)


def test_connect_and_info(pg, server):
    def observe(s):
        with _connect(s) as conn:
            info = conn.info
            pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
            return {
                "major": info.server_version // 10000,
                "version_param_major": info.parameter_status("server_version").split(".")[0],
                "status": info.transaction_status.name,
                "encoding": info.encoding,
                "params": {k: info.parameter_status(k) for k in [
                    "standard_conforming_strings", "client_encoding", "DateStyle", "integer_datetimes",
                    "TimeZone", "IntervalStyle", "application_name"]},
                "pid_matches": pid == info.backend_pid,
                "after_select_status": info.transaction_status.name,
            }
    differential(pg, server, observe)


@pytest.mark.parametrize("placeholder,binary", [("%s", False), ("%t", False), ("%b", False), ("%s", True)],
                         ids=["auto", "text_params", "binary_params", "binary_results"])
def test_params_roundtrip(pg, server, placeholder, binary):
    def observe(s):
        out = []
        with _connect(s, autocommit=True) as conn:
            for name, v in VALUES:
                cur = conn.cursor(binary=binary)
                try:
                    cur.execute(f"SELECT {placeholder}{CASTS.get(name, '')}", [v])
                    got = cur.fetchone()[0]
                    out.append((name, repr(got), cur.description[0].type_code, got == v))
                except psycopg.Error as e:
                    out.append((name, "error", e.sqlstate, str(e).splitlines()[0]))
        return out
    ref = differential(pg, server, observe, "fetched values")
    mismatched = [r for r in ref if r[1] != "error" and not r[3]]
    assert not mismatched, mismatched


def test_typed_expressions(pg, server):
    queries = [
        ("SELECT %s + 1, %s * 2.5, %s || 'x'", (41, 2, "a")),
        ("SELECT %s::int8, %s::numeric(10,2), %s::float8, %s::bool", ("7", "1.234", "0.5", "t")),
        ("SELECT %s::date + 1, %s::timestamp, %s::timestamptz", ("2024-01-01", "2024-01-02 03:04:05", "2024-01-02T03:04:05+00:00")),
        ("SELECT %s = ANY(%s)", (2, [1, 2, 3])),
        ("SELECT x FROM generate_series(1, %s) x WHERE x > %s ORDER BY x LIMIT %s", (10, 3, 4)),
        ("SELECT count(*), sum(x), avg(x) FROM generate_series(1, %s) x", (100,)),
        ("SELECT %s::text IS NULL, coalesce(%s, 'dflt')", (None, None)),
        ("SELECT '2024-01-01'::date, '12:34'::time, interval '1 day 2 hours', 1.5::numeric, ARRAY[1,2], 'x'::bytea", ()),
        ("SELECT current_schema(), current_database(), current_user, version() LIKE 'PostgreSQL 15%%'", ()),
    ]

    def observe(s):
        out = []
        with _connect(s, autocommit=True) as conn:
            for q, p in queries:
                for binary in (False, True):
                    cur = conn.cursor(binary=binary)
                    try:
                        cur.execute(q, p)
                        out.append((q, binary, [d.type_code for d in cur.description], repr(cur.fetchall())))
                    except psycopg.Error as e:
                        out.append((q, binary, e.sqlstate, str(e).splitlines()[0]))
        return out
    differential(pg, server, observe)


def test_transactions(pg, server):
    def observe(s):
        events = []
        with _connect(s) as conn:
            st = lambda: conn.info.transaction_status.name  # noqa: E731
            events.append(("start", st()))
            conn.execute("SELECT 1")
            events.append(("after select (implicit BEGIN)", st()))
            conn.commit()
            events.append(("after commit", st()))
            conn.execute("SET application_name = 'in_tx'")
            conn.rollback()
            events.append(("rolled back setting", conn.execute("SHOW application_name").fetchone()[0]))
            conn.rollback()
            try:
                conn.execute("SELECT 1/0")
            except psycopg.Error as e:
                events.append(("error", type(e).__name__, e.sqlstate, st()))
            try:
                conn.execute("SELECT 1")
            except psycopg.Error as e:
                events.append(("in failed tx", type(e).__name__, e.sqlstate, e.diag.message_primary))
            conn.rollback()
            events.append(("recovered", conn.execute("SELECT 'ok'").fetchone()[0], st()))
            conn.rollback()
            with conn.transaction():
                conn.execute("SET LOCAL application_name = 'local'")
                events.append(("in block", conn.execute("SHOW application_name").fetchone()[0], st()))
            events.append(("after block", conn.execute("SHOW application_name").fetchone()[0]))
            conn.commit()
            conn.autocommit = True
            conn.execute("SELECT 1")
            events.append(("autocommit", st()))
            with conn.transaction():
                events.append(("autocommit block", st()))
            events.append(("autocommit after block", st()))
        return events
    differential(pg, server, observe)


def test_savepoints(pg, server):
    def observe(s):
        events = []
        with _connect(s, autocommit=True) as conn:
            show = lambda: conn.execute("SHOW application_name").fetchone()[0]  # noqa: E731
            with conn.transaction():
                conn.execute("SET LOCAL application_name = 'outer'")
                try:
                    with conn.transaction():
                        conn.execute("SET LOCAL application_name = 'inner'")
                        events.append(("inner", show()))
                        conn.execute("SELECT 1/0")
                except psycopg.errors.DivisionByZero as e:
                    events.append(("caught", e.sqlstate))
                events.append(("after inner rollback", show(), conn.info.transaction_status.name))
                with conn.transaction():
                    conn.execute("SET LOCAL application_name = 'inner2'")
                events.append(("after inner release", show()))
                try:
                    with conn.transaction():
                        raise RuntimeError("client-side error")
                except RuntimeError:
                    events.append(("client exception rolled back savepoint", show()))
            events.append(("after outer", show()))
            try:
                with conn.transaction():
                    conn.execute("SET LOCAL application_name = 'doomed'")
                    conn.execute("SELECT nosuchcol")
            except psycopg.Error as e:
                events.append(("outer failed", e.sqlstate, show()))
        return events
    differential(pg, server, observe)


def test_pipeline(pg, server):
    def observe(s):
        events = []
        with _connect(s, autocommit=True) as conn:
            with conn.pipeline() as p:
                c1 = conn.execute("SELECT 1 AS a")
                c2 = conn.execute("SELECT %s::text AS b", ["x"])
                c3 = conn.execute("SELECT x FROM generate_series(1, %s) x", [3])
                p.sync()
                events.append(("results", c1.fetchall(), c2.fetchall(), c3.fetchall()))
            with conn.pipeline():
                cur = conn.cursor()
                cur.executemany("SELECT %s::int * 2", [(i,) for i in range(5)], returning=True)
                rows = []
                while True:
                    rows.append(cur.fetchall())
                    if not cur.nextset():
                        break
                events.append(("executemany", rows))
            try:
                with conn.pipeline():
                    conn.execute("SELECT 1")
                    conn.execute("SELECT 1/0")
                    conn.execute("SELECT 'skipped'")
            except psycopg.Error as e:
                events.append(("pipeline error", type(e).__name__, e.sqlstate))
            events.append(("after error", conn.execute("SELECT 'fine'").fetchone()))
            conn.autocommit = False
            with conn.pipeline():
                conn.execute("SET LOCAL application_name = 'pipelined tx'")
                events.append(("pipelined tx", conn.execute("SHOW application_name").fetchone()))
            conn.rollback()
        return events
    differential(pg, server, observe)


def test_auto_prepare_then_deallocate_all(pg, server):
    """After prepare_threshold (5) executions psycopg prepares `_pg3_n`; after a
    ROLLBACK it sends DEALLOCATE ALL and prepares again: if the server did not
    really deallocate, the second Parse of `_pg3_0` fails with 42P05."""
    def observe(s):
        events = []
        with _connect(s) as conn:
            conn.prepare_threshold = 5
            for i in range(8):
                events.append(conn.execute("SELECT %s::int + 1", [i]).fetchone()[0])
            prepared = getattr(getattr(conn, "_prepared", None), "_names", None)
            events.append(("client prepared something", bool(prepared) if prepared is not None else "n/a"))
            conn.rollback()
            for i in range(8):
                events.append(conn.execute("SELECT %s::int + 1", [i]).fetchone()[0])
            conn.commit()
            try:
                conn.execute("SELECT 1/0")
            except psycopg.Error as e:
                events.append(("error", e.sqlstate))
            conn.rollback()
            for i in range(8):
                events.append(conn.execute("SELECT %s::int + 1", [i], prepare=True).fetchone()[0])
            conn.commit()
            conn.execute("DEALLOCATE ALL")
            events.append(conn.execute("SELECT 'after manual deallocate'").fetchone()[0])
        return events
    differential(pg, server, observe)


def test_notifies_while_idle(pg, server):
    def observe(s):
        with _connect(s, autocommit=True) as listener, _connect(s, autocommit=True) as notifier:
            listener.execute("LISTEN psy_chan")
            notifier_pid = notifier.info.backend_pid

            def send():
                time.sleep(0.2)
                notifier.execute("NOTIFY psy_chan, 'one'")
                notifier.execute("SELECT pg_notify('psy_chan', 'two')")

            t = threading.Thread(target=send)
            t.start()
            got = []
            for n in listener.notifies(timeout=10, stop_after=2):
                got.append((n.channel, n.payload, n.pid == notifier_pid))
            t.join(10)
            listener.execute("NOTIFY psy_chan, 'self'")
            self_notes = [(n.channel, n.payload, n.pid == listener.info.backend_pid)
                          for n in listener.notifies(timeout=5, stop_after=1)]
            return got, self_notes
    ref = differential(pg, server, observe)
    assert len(ref[0]) == 2 and len(ref[1]) == 1


def test_copy_to(pg, server):
    def observe(s):
        with _connect(s, autocommit=True) as conn:
            cur = conn.cursor()
            with cur.copy("COPY (SELECT x, 'r' || x, NULL FROM generate_series(1, 3) x) TO STDOUT") as copy:
                text_rows = [bytes(b) for b in copy]
            with cur.copy("COPY (SELECT 1::int, 'a'::text) TO STDOUT") as copy:
                copy.set_types(["int4", "text"])
                typed = list(copy.rows())
            with cur.copy("COPY (SELECT 1, 'x,y') TO STDOUT (FORMAT csv)") as copy:
                csv = b"".join(bytes(b) for b in copy)
            return text_rows, typed, csv, cur.rowcount
    differential(pg, server, observe)


def test_copy_from_binary(pg, server):
    """COPY FROM STDIN (FORMAT binary) as psycopg writes it: typed rows, NULLs, rows split over
    CopyData messages; then the errors of a bad signature and a wrong field count."""
    rows = [
        (1, "one", Decimal("1.50"), dt.date(2024, 2, 29), dt.datetime(2024, 1, 2, 3, 4, 5, 6), b"\x00\xff", True, [1, 2]),
        (2, None, None, None, None, None, None, None),
        (3, "ünïcødé " * 200, Decimal("-0.001"), dt.date(1999, 12, 31), dt.datetime(2000, 1, 1), b"", False, []),
    ]
    types = ["int4", "text", "numeric", "date", "timestamp", "bytea", "bool", "int4[]"]

    def observe(s):
        out = []
        with _connect(s, autocommit=True) as conn:
            cur = conn.cursor()
            cur.execute("DROP TABLE IF EXISTS cb_t")
            cur.execute("CREATE TABLE cb_t (id int PRIMARY KEY, t text, n numeric, d date, ts timestamp, "
                        "b bytea, f bool, a int4[])")
            with cur.copy("COPY cb_t FROM STDIN (FORMAT binary)") as copy:
                copy.set_types(types)
                for r in rows:
                    copy.write_row(r)
            out.append(cur.rowcount)
            with cur.copy("COPY cb_t (id, t) FROM STDIN (FORMAT binary)") as copy:
                copy.set_types(["int4", "text"])
                for i in range(10, 3010):
                    copy.write_row((i, f"row {i}"))
            out.append(cur.rowcount)
            out.append(cur.execute("SELECT * FROM cb_t WHERE id < 10 ORDER BY id").fetchall())
            out.append(cur.execute("SELECT count(*), sum(id) FROM cb_t").fetchone())
            for bad in (b"not a copy file at all", b"PGCOPY\n\xff\r\n\x00" + b"\x00" * 8 + b"\x00\x01" + b"\x00\x00\x00\x01" + b"7"):
                try:
                    with cur.copy("COPY cb_t (id, t) FROM STDIN (FORMAT binary)") as copy:
                        copy.write(bad)
                    out.append("no error")
                except psycopg.Error as e:
                    out.append((e.sqlstate, str(e).splitlines()[0]))
            out.append(cur.execute("SELECT count(*) FROM cb_t").fetchone())
            cur.execute("DROP TABLE cb_t")
        return out
    differential(pg, server, observe)


def test_server_side_cursor(pg, server):
    def observe(s):
        with _connect(s) as conn:
            with conn.cursor(name="ssc") as cur:
                cur.itersize = 3
                cur.execute("SELECT x, x::text FROM generate_series(1, 10) x")
                first = cur.fetchmany(4)
                rest = cur.fetchall()
            conn.commit()
            return first, rest
    differential(pg, server, observe)


ERROR_QUERIES = [
    "SELECT 1/0",
    "SELECT nosuchfunc()",
    "SELECT 1::nosuchtype",
    "SELEC 1",
    "SELECT 'abc'::int",
    "SELECT nosuchcol",
    "SELECT * FROM nosuchtable",
    "SELECT 2147483647 + 1",
]


def test_error_classes(pg, server):
    def observe(s):
        out = []
        with _connect(s, autocommit=True) as conn:
            for q in ERROR_QUERIES:
                try:
                    conn.execute(q)
                    out.append((q, "no error"))
                except psycopg.Error as e:
                    d = e.diag
                    out.append((q, type(e).__name__, e.sqlstate, d.severity, d.severity_nonlocalized,
                                d.message_primary, d.message_detail, d.message_hint, d.statement_position))
            out.append(("status", conn.info.transaction_status.name, conn.execute("SELECT 'alive'").fetchone()))
        return out
    differential(pg, server, observe)


def test_notice_handler(pg, server):
    def observe(s):
        notices = []
        with _connect(s, autocommit=True) as conn:
            conn.add_notice_handler(lambda d: notices.append((d.severity, d.sqlstate, d.message_primary)))
            conn.execute("COMMIT")
            conn.execute("LISTEN abcdefghij_abcdefghij_abcdefghij_abcdefghij_abcdefghij_abcdefghij_xyz")
        return notices
    differential(pg, server, observe)


def test_connect_errors(pg, server):
    def observe(s):
        out = []
        for kw in [{"dbname": "no_such_db"}, {"options": "-c no_such_guc=1"}]:
            try:
                psycopg.connect(s.conninfo, connect_timeout=10, **kw).close()
                out.append("connected")
            except psycopg.OperationalError as e:
                msg = str(e)
                out.append(msg[msg.find("FATAL"):].splitlines()[0] if "FATAL" in msg else msg)
        return out
    differential(pg, server, observe)


def test_async_connection(pg, server):
    import asyncio

    async def run(s):
        async with await psycopg.AsyncConnection.connect(s.conninfo, autocommit=True) as conn:
            cur = await conn.execute("SELECT %s::int + 1, %s", [1, "x"])
            row = await cur.fetchone()
            await conn.execute("LISTEN apsy")
            await conn.execute("NOTIFY apsy, 'async self'")
            notes = []
            gen = conn.notifies(timeout=5, stop_after=1)
            async for n in gen:
                notes.append((n.channel, n.payload))
            return row, notes

    differential(pg, server, lambda s: asyncio.run(asyncio.wait_for(run(s), 30)))


def test_libpq_pipeline_status_sanity(pg, server):
    """pq-level: the connection reports the same protocol version and status."""
    def observe(s):
        with _connect(s) as conn:
            return conn.pgconn.protocol_version, conn.pgconn.status == pq.ConnStatus.OK
    differential(pg, server, observe)


def test_regclass_in_binary_is_the_relation_oid(pg, server):
    """A binary regclass is the relation's OID, for a user table too (threadgres holds a user
    relation's regclass by name; the session resolves it before sending)."""
    def observe(s):
        with _connect(s) as conn:
            conn.autocommit = True
            conn.execute("DROP TABLE IF EXISTS psy_regclass_t")
            conn.execute("CREATE TABLE psy_regclass_t (a int)")
            oid = conn.execute("SELECT 'psy_regclass_t'::regclass::oid").fetchone()[0]
            cur = conn.cursor(binary=True)
            cur.execute("SELECT 'psy_regclass_t'::regclass, 'pg_class'::regclass, "
                        "c.oid::regclass FROM pg_class c WHERE c.relname = 'psy_regclass_t'")
            user, builtin, via_oid = cur.fetchone()
            text = conn.execute("SELECT 'psy_regclass_t'::regclass::text").fetchone()[0]
            conn.execute("DROP TABLE psy_regclass_t")
            # regrole likewise: a created role and a predefined one.
            conn.execute("DROP ROLE IF EXISTS psy_regrole_r")
            conn.execute("CREATE ROLE psy_regrole_r")
            role_oid = conn.execute("SELECT oid FROM pg_roles WHERE rolname = 'psy_regrole_r'"
                                    ).fetchone()[0]
            cur.execute("SELECT 'psy_regrole_r'::regrole, 'pg_monitor'::regrole")
            role, predefined = cur.fetchone()
            conn.execute("DROP ROLE psy_regrole_r")
            return {
                "user_is_oid": int.from_bytes(user, "big") == oid,
                "via_oid_is_oid": int.from_bytes(via_oid, "big") == oid,
                "builtin": int.from_bytes(builtin, "big"),
                "text": text,
                "role_is_oid": int.from_bytes(role, "big") == role_oid,
                "predefined": int.from_bytes(predefined, "big"),
            }
    differential(pg, server, observe)


def test_hstore_adapter(pg, server):
    """psycopg's hstore adapter finds the type CREATE EXTENSION made (TypeInfo by name) and
    round-trips dicts in text and binary, NULL values and escapes included."""
    from psycopg.types import TypeInfo
    from psycopg.types.hstore import register_hstore

    def observe(s):
        with _connect(s, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS py_hstore")
            conn.execute("DROP EXTENSION IF EXISTS hstore")
            conn.execute("CREATE EXTENSION hstore")
            info = TypeInfo.fetch(conn, "hstore")
            register_hstore(info, conn)
            conn.execute("CREATE TABLE py_hstore (id int, h hstore)")
            sent = {"a": "1", "b": None, "é": 'x"y\\z', "": ""}
            conn.execute("INSERT INTO py_hstore VALUES (1, %s), (2, %s)", (sent, {}))
            text = conn.execute("SELECT h, h -> 'a' FROM py_hstore ORDER BY id").fetchall()
            binary = conn.execute("SELECT h FROM py_hstore ORDER BY id", binary=True).fetchall()
            param = conn.execute("SELECT %b::hstore ? 'k'", ({"k": None},)).fetchone()
            assert text[0][0] == sent
            conn.execute("DROP TABLE py_hstore")
            conn.execute("DROP EXTENSION hstore")
            return info.name, text, binary, param
    differential(pg, server, observe)
