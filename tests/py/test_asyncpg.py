"""asyncpg against both servers (binary protocol everywhere, Parse + Describe +
Flush, Execute with row limits, a Pool and its reset query, add_listener).
Observations on PostgreSQL 15 and on the server under test must be equal."""

from __future__ import annotations

import asyncio
import datetime as dt
from decimal import Decimal

import asyncpg
import pytest

from clientutil import arun, differential


async def _connect(s, **kw):
    return await asyncpg.connect(host=s.host, port=s.port, user=s.user, database=s.database,
                                 password=s.password, ssl=False, timeout=10, **kw)


def run_both(pg, server, coro_fn, what="result"):
    return differential(pg, server, lambda s: arun(coro_fn(s)), what)


PARAMS = [
    ("int2", "$1::int2", 7),
    ("int4", "$1::int4", -2147483648),
    ("int8", "$1::int8", 2**62),
    ("numeric", "$1::numeric", Decimal("12345.678900")),
    ("numeric_neg", "$1::numeric", Decimal("-0.001")),
    ("numeric_nan", "$1::numeric", Decimal("NaN")),
    ("float8", "$1::float8", 0.1),
    ("text", "$1::text", "héllo"),
    ("varchar", "$1::varchar", "vc"),
    ("bpchar", "$1::char(4)", "ab"),  # comes back blank-padded
    ("bool", "$1::bool", True),
    ("bytea", "$1::bytea", b"\x00\xff\x10"),
    ("date", "$1::date", dt.date(2024, 2, 29)),
    ("timestamp", "$1::timestamp", dt.datetime(2024, 1, 2, 3, 4, 5, 678901)),
    ("timestamptz", "$1::timestamptz", dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)),
    ("interval", "$1::interval", dt.timedelta(days=3, hours=4, microseconds=5)),
    ("oid", "$1::oid", 4294967295),
    ("name", "$1::name", "a_name"),
    ("int4_array", "$1::int4[]", [1, None, 3]),
    ("text_array", "$1::text[]", ["a", "b c", ""]),
    ("null", "$1::int", None),
    ("untyped", "$1", "text by default"),
]


def test_connect(pg, server):
    async def observe(s):
        conn = await _connect(s)
        try:
            v = conn.get_server_version()
            return {
                "major": v.major,
                "settings": {k: getattr(conn.get_settings(), k) for k in
                             ("client_encoding", "server_encoding", "standard_conforming_strings", "DateStyle")},
                "pid_matches": conn.get_server_pid() == await conn.fetchval("SELECT pg_backend_pid()"),
                "closed": conn.is_closed(),
            }
        finally:
            await conn.close()
    run_both(pg, server, observe)


def test_fetch_variants(pg, server):
    async def observe(s):
        conn = await _connect(s)
        try:
            rows = await conn.fetch("SELECT x, x * 2 AS y, x::text AS t FROM generate_series(1, 3) x")
            row = await conn.fetchrow("SELECT 1 AS a, 'b' AS b, NULL::int AS c")
            none_row = await conn.fetchrow("SELECT 1 WHERE false")
            val = await conn.fetchval("SELECT $1::int + $2::int", 40, 2)
            val_col = await conn.fetchval("SELECT 1, 2, 3", column=2)
            status = await conn.execute("SELECT 1; SELECT 2; SET application_name = 'apg'")
            status2 = await conn.execute("SELECT x FROM generate_series(1, 5) x")
            many = await conn.fetch("SELECT $1::text || x FROM generate_series(1, $2) x", "r", 4)
            return ([tuple(r.items()) for r in rows], tuple(row.items()), none_row, val, val_col, status,
                    status2, [r[0] for r in many], await conn.fetchval("SHOW application_name"))
        finally:
            await conn.close()
    run_both(pg, server, observe)


def test_binary_types_roundtrip(pg, server):
    async def observe(s):
        conn = await _connect(s)
        out = []
        try:
            for name, expr, v in PARAMS:
                try:
                    got = await conn.fetchval(f"SELECT {expr}", v)
                    expect = v.ljust(4) if name == "bpchar" else v
                    same = got == expect or (isinstance(v, Decimal) and v.is_nan() and got.is_nan())
                    out.append((name, repr(got), same))
                except asyncpg.PostgresError as e:
                    out.append((name, "error", e.sqlstate, str(e)))
            try:
                r = await conn.fetchrow(
                    "SELECT 1::int2 a, 2::int4 b, 3::int8 c, 1.5::numeric d, 0.25::float8 e, 't'::text f, 'v'::varchar g,"
                    " 'c'::char(3) h, true i, '2024-01-01'::date j, '2024-01-01 01:02:03'::timestamp k,"
                    " '2024-01-01 01:02:03+05'::timestamptz l, '1 mon 2 days 3 sec'::interval m, '\\x01'::bytea n,"
                    " 23::oid o, 'nm'::name p, ARRAY[1, 2] q, ARRAY['x', NULL] r, 'infinity'::date s,"
                    " '-infinity'::timestamp t, 'NaN'::float8 u, NULL::text v")
                out.append(("row", repr(tuple(r.items()))))
            except asyncpg.PostgresError as e:
                out.append(("row", "error", e.sqlstate, str(e)))
        finally:
            await conn.close()
        return out
    ref = run_both(pg, server, observe, "decoded values")
    bad = [r for r in ref if len(r) == 3 and not r[2]]
    assert not bad, bad


def test_prepared_statements(pg, server):
    async def observe(s):
        conn = await _connect(s)
        try:
            stmt = await conn.prepare("SELECT $1::int + 1 AS r, $2::text AS t")
            params = [t.name for t in stmt.get_parameters()]
            attrs = [(a.name, a.type.name) for a in stmt.get_attributes()]
            vals = [await stmt.fetchval(i, "x") for i in range(3)]
            row = await stmt.fetchrow(10, "y")
            many = await stmt.fetch(5, None)
            infer = await conn.prepare("SELECT $1 + 1, $2 = 'a', upper($3), $4::numeric * 2")
            inferred = [t.name for t in infer.get_parameters()]
            inferred_vals = tuple(await infer.fetchrow(1, "a", "b", Decimal("1.5")))
            nores = await conn.prepare("SET application_name = 'x'")
            nores_attrs = nores.get_attributes()
            return params, attrs, vals, tuple(row.items()), [tuple(r) for r in many], inferred, \
                inferred_vals, nores_attrs, stmt.get_statusmsg()
        finally:
            await conn.close()
    run_both(pg, server, observe)


def test_cursor_and_row_limits(pg, server):
    async def observe(s):
        conn = await _connect(s)
        try:
            out = []
            async with conn.transaction():
                async for r in conn.cursor("SELECT x FROM generate_series(1, 7) x", prefetch=3):
                    out.append(r[0])
                cur = await conn.cursor("SELECT x, x::text FROM generate_series(1, 10) x")
                out.append([tuple(r) for r in await cur.fetch(4)])
                out.append(tuple(await cur.fetchrow()))
                await cur.forward(2)
                out.append([tuple(r) for r in await cur.fetch(10)])
            return out
        finally:
            await conn.close()
    run_both(pg, server, observe)


def test_transactions(pg, server):
    async def observe(s):
        conn = await _connect(s)
        ev = []
        try:
            show = lambda: conn.fetchval("SHOW application_name")  # noqa: E731
            async with conn.transaction():
                await conn.execute("SET LOCAL application_name = 'outer'")
                ev.append(("in tx", conn.is_in_transaction(), await show()))
                try:
                    async with conn.transaction():
                        await conn.execute("SET LOCAL application_name = 'inner'")
                        await conn.execute("SELECT 1/0")
                except asyncpg.DivisionByZeroError as e:
                    ev.append(("savepoint rolled back", e.sqlstate, await show()))
            ev.append(("after", conn.is_in_transaction(), await show()))
            tr = conn.transaction(isolation="repeatable_read", readonly=True)
            await tr.start()
            ev.append(("iso", await conn.fetchval("SHOW transaction_isolation"),
                       await conn.fetchval("SHOW transaction_read_only")))
            await tr.rollback()
            try:
                async with conn.transaction():
                    await conn.execute("SELECT nosuchcol")
            except asyncpg.PostgresError as e:
                ev.append(("failed", type(e).__name__, e.sqlstate))
            ev.append(("clean", conn.is_in_transaction(), await conn.fetchval("SELECT 'ok'")))
        finally:
            await conn.close()
        return ev
    run_both(pg, server, observe)


def test_executemany(pg, server):
    async def observe(s):
        conn = await _connect(s)
        try:
            await conn.executemany("SELECT $1::int, $2::text", [(i, str(i)) for i in range(20)])
            try:
                await conn.executemany("SELECT 10 / $1::int", [(1,), (0,), (2,)])
                err = None
            except asyncpg.PostgresError as e:
                err = (type(e).__name__, e.sqlstate)
            return err, await conn.fetchval("SELECT 'after executemany'")
        finally:
            await conn.close()
    run_both(pg, server, observe)


@pytest.mark.filterwarnings("ignore:.*active notification listener")
def test_pool_reset_on_release(pg, server):
    """Pool.release sends `SELECT pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL;`
    (a failure there makes the pool drop the connection with an error)."""
    async def observe(s):
        pool = await asyncpg.create_pool(host=s.host, port=s.port, user=s.user, database=s.database,
                                         password=s.password, ssl=False, min_size=1, max_size=1, timeout=10)
        try:
            ev = []
            async with pool.acquire() as c:
                pid1 = c.get_server_pid()
                await c.execute("SET application_name = 'dirty'")
                await c.execute("LISTEN pool_chan")
                await c.add_listener("pool_chan2", lambda *a: None)
                ev.append(await c.fetch("SELECT * FROM pg_listening_channels() ORDER BY 1"))
            async with pool.acquire() as c:
                ev.append(("same backend", c.get_server_pid() == pid1))
                ev.append(("reset app name", await c.fetchval("SHOW application_name")))
                ev.append(("listening", [tuple(r) for r in await c.fetch("SELECT * FROM pg_listening_channels()")]))
            for i in range(3):
                ev.append(await pool.fetchval("SELECT $1::int * 3", i))
            return [e if not isinstance(e, list) else [tuple(r) for r in e] for e in ev]
        finally:
            await asyncio.wait_for(pool.close(), 10)
    run_both(pg, server, observe)


def test_add_listener_while_idle(pg, server):
    async def observe(s):
        listener = await _connect(s)
        notifier = await _connect(s)
        got = []
        done = asyncio.Event()

        def cb(conn, pid, channel, payload):
            got.append((pid == notifier.get_server_pid(), channel, payload))
            if len(got) == 3:
                done.set()
        try:
            await listener.add_listener("apg_chan", cb)
            await notifier.execute("NOTIFY apg_chan, 'one'")
            await notifier.execute("SELECT pg_notify('apg_chan', 'two')")
            await notifier.execute("BEGIN; NOTIFY apg_chan, 'three'; NOTIFY apg_chan, 'three'; COMMIT;")
            await asyncio.wait_for(done.wait(), 10)
            await listener.remove_listener("apg_chan", cb)
            return got, [tuple(r) for r in await listener.fetch("SELECT * FROM pg_listening_channels()")]
        finally:
            await listener.close()
            await notifier.close()
    ref = run_both(pg, server, observe)
    assert len(ref[0]) == 3


def test_copy_from_query(pg, server):
    import io

    async def observe(s):
        conn = await _connect(s)
        try:
            buf = io.BytesIO()
            status = await conn.copy_from_query("SELECT x, 'v' || x FROM generate_series(1, $1) x", 3, output=buf)
            csv = io.BytesIO()
            await conn.copy_from_query("SELECT 1, 'a,b'", output=csv, format="csv", header=True)
            return status, buf.getvalue(), csv.getvalue()
        finally:
            await conn.close()
    run_both(pg, server, observe)


def test_errors(pg, server):
    async def observe(s):
        conn = await _connect(s)
        out = []
        try:
            for q in ["SELECT 1/0", "SELECT nosuchfunc()", "SELECT 1::nosuchtype", "SELEC 1",
                      "SELECT $1::int", "SELECT 'x'::int"]:
                try:
                    await conn.fetch(q) if "$1" not in q else await conn.fetch(q, "notanint")
                    out.append((q, "no error"))
                except (asyncpg.PostgresError, asyncpg.DataError) as e:
                    out.append((q, type(e).__name__, getattr(e, "sqlstate", None), str(e),
                                getattr(e, "position", None), getattr(e, "hint", None)))
            out.append(await conn.fetchval("SELECT 'alive'"))
        finally:
            await conn.close()
        return out
    run_both(pg, server, observe)


def test_connect_missing_database(pg, server):
    async def observe(s):
        try:
            conn = await asyncpg.connect(host=s.host, port=s.port, user=s.user, database="no_such_db",
                                         ssl=False, timeout=10)
            await conn.close()
            return "connected"
        except asyncpg.PostgresError as e:
            return type(e).__name__, e.sqlstate, str(e)
    run_both(pg, server, observe)
