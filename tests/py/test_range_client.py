"""Range types through a real client: psycopg 3 reads the built-in range types natively, in
binary (range_send's format: a flags byte, then each bound length-prefixed) and in text, and a
range type made by CREATE TYPE ... AS RANGE once registered from pg_range (RangeInfo)."""

import datetime
from decimal import Decimal

import psycopg
from psycopg.types.range import Range, RangeInfo, register_range


def test_range_binary_and_text(server):
    with psycopg.connect(server.conninfo, connect_timeout=10, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS rgc_t")
        conn.execute("DROP TYPE IF EXISTS rgc_float")
        conn.execute("CREATE TYPE rgc_float AS RANGE (subtype = float8)")
        conn.execute(
            "CREATE TABLE rgc_t (id int, a int4range, b numrange, d daterange, e int8range,"
            " f rgc_float, arr int4range[])"
        )
        conn.execute(
            "INSERT INTO rgc_t VALUES"
            " (1, '(1,5]', '[1.5,2.25)', '[2024-01-01,2024-01-31]', '[,10)', '(0.5,1]',"
            "  '{\"[1,2)\",empty}'),"
            " (2, 'empty', '(,)', 'empty', '[3,)', 'empty', '{}'),"
            " (3, NULL, NULL, NULL, NULL, NULL, NULL)"
        )
        info = RangeInfo.fetch(conn, "rgc_float")
        assert info is not None
        register_range(info, conn)
        expected = [
            (
                1,
                Range(2, 6, "[)"),
                Range(Decimal("1.5"), Decimal("2.25"), "[)"),
                Range(datetime.date(2024, 1, 1), datetime.date(2024, 2, 1), "[)"),
                Range(None, 10, "()"),
                Range(0.5, 1.0, "(]"),
                [Range(1, 2, "[)"), Range(empty=True)],
            ),
            (
                2,
                Range(empty=True),
                Range(None, None, "()"),
                Range(empty=True),
                Range(3, None, "[)"),
                Range(empty=True),
                [],
            ),
            (3, None, None, None, None, None, None),
        ]
        for binary in (True, False):
            cur = conn.cursor(binary=binary)
            rows = cur.execute("SELECT * FROM rgc_t ORDER BY id").fetchall()
            assert [tuple(r) for r in rows] == expected, binary
        # Range parameters: psycopg sends date and Decimal ranges in binary (range_recv),
        # canonicalized like literals; int ranges it sends as text of unknown type.
        cur = conn.cursor(binary=True)
        got = cur.execute(
            "SELECT %b::daterange, %b::numrange @> 2.5, %b::int4range, upper(%b::int4range)",
            (
                Range(datetime.date(2024, 1, 1), datetime.date(2024, 1, 3), "[]"),
                Range(Decimal("1.5"), Decimal("2.5"), "(]"),
                Range(1, 5, "[]"),
                Range(1, 5, "(]"),
            ),
        ).fetchone()
        assert got == (
            Range(datetime.date(2024, 1, 1), datetime.date(2024, 1, 4), "[)"),
            True,
            Range(1, 6, "[)"),
            6,
        )
        conn.execute("DROP TABLE rgc_t")
        conn.execute("DROP TYPE rgc_float")


def test_range_asyncpg_binary(server):
    """asyncpg reads and writes the built-in range types only in binary (int4range parameters
    included, so range_recv canonicalizes them)."""
    import asyncio

    import asyncpg

    async def run():
        s = server
        conn = await asyncpg.connect(host=s.host, port=s.port, user=s.user, database=s.database,
                                     password=s.password, ssl=False, timeout=10)
        try:
            row = await conn.fetchrow(
                "SELECT '(1,5]'::int4range, numrange(1.5, NULL), 'empty'::daterange,"
                " ARRAY['[1,2)'::int8range], $1::int4range, $2::int4range @> 3",
                asyncpg.Range(1, 5, upper_inc=True),
                asyncpg.Range(None, 3, upper_inc=True),
            )
        finally:
            await conn.close()
        return list(row.values())

    got = asyncio.run(run())
    assert got == [
        asyncpg.Range(2, 6),
        asyncpg.Range(Decimal("1.5"), None),
        asyncpg.Range(empty=True),
        [asyncpg.Range(1, 2)],
        asyncpg.Range(1, 6),
        True,
    ]
