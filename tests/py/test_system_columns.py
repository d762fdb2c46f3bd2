"""System columns (issue 31) through a real driver and across restarts.

The optimistic concurrency pattern of ORMs (EF Core / Npgsql use xmin as the concurrency token:
read the row with its xmin, later `UPDATE ... WHERE id = $1 AND xmin = $2`, zero rows updated
meaning someone else changed it) and the editor pattern of finding a row again by its ctid, run
with psycopg against PostgreSQL 15 and threadgres; what the client sees must be the same.
Transaction ids differ between servers, so only their relations are observed.

The restart tests are threadgres-only: rows read back after a clean restart or a kill -9 must
still answer their ctid and xmin sensibly (threadgres shows FrozenTransactionId, 2, for every
row a start read back: see `txn::FROZEN_XID`), and transaction ids are not given again.
"""

from __future__ import annotations

import signal

import psycopg
import pytest

from clientutil import differential

TG = pytest.mark.parametrize("server", ["threadgres"], indirect=True)


def _connect(s, **kw):
    return psycopg.connect(s.conninfo, connect_timeout=10, **kw)


def test_xmin_concurrency_token(pg, server):
    def observe(s):
        out = []
        with _connect(s, autocommit=True) as a, _connect(s, autocommit=True) as b:
            a.execute("DROP TABLE IF EXISTS sc_orm")
            a.execute("CREATE TABLE sc_orm (id int PRIMARY KEY, name text)")
            # INSERT ... RETURNING xmin, as EF Core reads the new row's token.
            tok0 = a.execute(
                "INSERT INTO sc_orm VALUES (%s, %s) RETURNING xmin", (1, "first")).fetchone()[0]
            out.append(("token type", type(tok0).__name__))
            # Two users load the row with its token.
            ta = a.execute("SELECT name, xmin FROM sc_orm WHERE id = %s", (1,)).fetchone()
            tb = b.execute("SELECT name, xmin FROM sc_orm WHERE id = %s", (1,)).fetchone()
            out.append(("same token read", ta[1] == tb[1] == tok0))
            # The first saves: one row, and a new token.
            cur = a.execute(
                "UPDATE sc_orm SET name = %s WHERE id = %s AND xmin = %s RETURNING xmin",
                ("by a", 1, str(ta[1])))
            new = cur.fetchone()
            out.append(("a updates", cur.rowcount, new is not None and new[0] != ta[1]))
            # The second's token is stale: nothing updated (a concurrency conflict).
            cur = b.execute(
                "UPDATE sc_orm SET name = %s WHERE id = %s AND xmin = %s::xid",
                ("by b", 1, str(tb[1])))
            out.append(("b conflicts", cur.rowcount))
            # It reloads and saves with the fresh token.
            tb = b.execute("SELECT name, xmin FROM sc_orm WHERE id = %s", (1,)).fetchone()
            out.append(("b reloads", tb[0], tb[1] == new[0]))
            cur = b.execute(
                "UPDATE sc_orm SET name = %s WHERE id = %s AND xmin = %s",
                ("by b", 1, str(tb[1])))
            out.append(("b retries", cur.rowcount))
            # Inside a transaction the token is the transaction's own id.
            with b.transaction():
                b.execute("UPDATE sc_orm SET name = 'in txn' WHERE id = 1")
                out.append(("own xid", b.execute(
                    "SELECT xmin = pg_current_xact_id()::xid, xmin::text = "
                    "(txid_current() % 4294967296)::text FROM sc_orm").fetchone()))
            # Prepared (extended protocol, binary results) reads of the columns' types.
            cur = a.cursor(binary=True)
            cur.execute("SELECT ctid, xmin, cmin, xmax, cmax FROM sc_orm WHERE id = %s", (1,))
            row = cur.fetchone()
            out.append(("types", [d.type_code for d in cur.description], row[3], row[4]))
            a.execute("DROP TABLE sc_orm")
        return out
    differential(pg, server, observe)


def test_ctid_finds_the_row_again(pg, server):
    def observe(s):
        out = []
        with _connect(s, autocommit=True) as c:
            c.execute("DROP TABLE IF EXISTS sc_grid")
            c.execute("CREATE TABLE sc_grid (a int, b text)")
            c.execute("INSERT INTO sc_grid SELECT g, 'r' || g FROM generate_series(1, 5) g")
            rows = c.execute("SELECT ctid, a FROM sc_grid ORDER BY a").fetchall()
            out.append(("ctids", [r[0] for r in rows]))
            # A grid editor keeps each row's ctid and writes through it.
            ctid3 = rows[2][0]
            out.append(("found", c.execute(
                "SELECT a, b FROM sc_grid WHERE ctid = %s", (ctid3,)).fetchall()))
            cur = c.execute("UPDATE sc_grid SET b = 'edited' WHERE ctid = %s RETURNING ctid",
                            (ctid3,))
            moved = cur.fetchone()[0]
            out.append(("moved", moved != ctid3, moved))
            # The old ctid names the dead version: nothing there now.
            out.append(("old", c.execute(
                "SELECT a FROM sc_grid WHERE ctid = %s", (ctid3,)).fetchall()))
            out.append(("new", c.execute(
                "SELECT a, b FROM sc_grid WHERE ctid = %s::tid", (moved,)).fetchall()))
            out.append(("any", c.execute(
                "SELECT a FROM sc_grid WHERE ctid = ANY (%s::tid[]) ORDER BY a",
                ([rows[0][0], rows[4][0], "(0,0)"],)).fetchall()))
            c.execute("DROP TABLE sc_grid")
        return out
    differential(pg, server, observe)


def _restart(p, how):
    if how == "kill9":
        p.proc.send_signal(signal.SIGKILL)
        p.proc.wait(10)
        p.start()
    else:
        p.restart()


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_system_columns_after_restart(server, tg_dedicated, how):
    p = tg_dedicated()
    c = p.info.connect_raw()
    c.simple("CREATE TABLE sc_keep (id int PRIMARY KEY, v text)")
    c.simple("INSERT INTO sc_keep SELECT g, 'v' || g FROM generate_series(1, 50) g")
    c.simple("UPDATE sc_keep SET v = 'changed' WHERE id = 7")
    # With kill -9, what was committed after the checkpoint is read back by replaying the log.
    c.simple("CHECKPOINT")
    c.simple("INSERT INTO sc_keep VALUES (51, 'after checkpoint')")
    c.simple("UPDATE sc_keep SET v = 'changed again' WHERE id = 8")
    before = int(c.simple("SELECT txid_current()")[0][0])
    c.close()
    _restart(p, how)
    c = p.info.connect_raw()
    rows = c.simple("SELECT id, v, ctid, xmin, xmax FROM sc_keep ORDER BY id")
    assert len(rows) == 51
    assert rows[6][1] == "changed"
    # Every row read back answers the frozen id, and no one holds it.
    assert {r[3] for r in rows} == {"2"}
    assert {r[4] for r in rows} == {"0"}
    # Each row is found by its ctid, and only it.
    assert len({r[2] for r in rows}) == 51
    for r in rows[::10] + [rows[50]]:
        assert c.simple(f"SELECT id FROM sc_keep WHERE ctid = '{r[2]}'") == [(r[0],)]
    # The token read after the restart works, and the update makes a new one.
    assert c.simple("UPDATE sc_keep SET v = 'x' WHERE id = 3 AND xmin = '2' "
                    "RETURNING xmin <> '2'") == [("t",)]
    assert c.simple("UPDATE sc_keep SET v = 'y' WHERE id = 3 AND xmin = '2'") == []
    # Transaction ids go on after those of the server before.
    c.simple("BEGIN")
    c.simple("INSERT INTO sc_keep VALUES (100, 'new')")
    now = int(c.simple("SELECT txid_current()")[0][0])
    assert c.simple("SELECT xmin::text = (txid_current() % 4294967296)::text "
                    "FROM sc_keep WHERE id = 100") == [("t",)]
    c.simple("COMMIT")
    assert now > before
    c.close()
    # A second restart shows the same.
    _restart(p, how)
    c = p.info.connect_raw()
    assert c.simple("SELECT count(*), min(xmin::text), max(xmin::text) FROM sc_keep") == [
        ("52", "2", "2")]
    c.close()
