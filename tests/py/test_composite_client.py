"""Composite types through real clients: psycopg reads a composite in binary (record_send's
format: field count, then type OID, length and data per field) and in text."""

import psycopg
from psycopg.types.composite import CompositeInfo, register_composite


def test_composite_binary_and_text(server):
    with psycopg.connect(server.conninfo, connect_timeout=10, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS ctc_t")
        conn.execute("DROP TYPE IF EXISTS ctc_pt")
        conn.execute("CREATE TYPE ctc_pt AS (x int, label text, w float8)")
        conn.execute("CREATE TABLE ctc_t (id int, p ctc_pt)")
        conn.execute(
            "INSERT INTO ctc_t VALUES (1, '(1,\"a b\",1.5)'), (2, row(2, NULL, -0.25)), (3, NULL)"
        )
        info = CompositeInfo.fetch(conn, "ctc_pt")
        assert info is not None
        assert [f for f in info.field_names] == ["x", "label", "w"]
        register_composite(info, conn)
        for binary in (True, False):
            cur = conn.cursor(binary=binary)
            rows = cur.execute("SELECT id, p FROM ctc_t ORDER BY id").fetchall()
            assert [(r[0], None if r[1] is None else tuple(r[1])) for r in rows] == [
                (1, (1, "a b", 1.5)),
                (2, (2, None, -0.25)),
                (3, None),
            ]
        # A composite parameter sent in binary comes back whole.
        cur = conn.cursor(binary=True)
        p = info.python_type(7, "q", 2.0)
        got = cur.execute("SELECT %b::ctc_pt, (%b::ctc_pt).label", (p, p)).fetchone()
        assert tuple(got[0]) == (7, "q", 2.0) and got[1] == "q"
        conn.execute("DROP TABLE ctc_t")
        conn.execute("DROP TYPE ctc_pt")
