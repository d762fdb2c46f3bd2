"""Password authentication (SCRAM-SHA-256): threadgres started with --password,
PostgreSQL 15 with a scram-sha-256 pg_hba rule for role scram_user. Messages are
compared with the user name normalized."""

from __future__ import annotations

import asyncpg
import psycopg

import difftest
import pgwire
from clientutil import arun, differential, pg_tool, run_tool


def _norm(text: str, s) -> str:
    return text.replace(f'"{s.user}"', '"<user>"').replace(str(s.port), "<port>")


def test_raw_scram_exchange(pg_scram, server_scram):
    def fn(sc):
        s = sc.raw_session("s1")
        s.raw(pgwire.startup_packet({"user": sc.server.user, "database": "postgres"}), "StartupMessage")
        s.read(1)  # AuthenticationSASL (mechanism list compared below)
        s.conn.close()

    def observe(s):
        lines = difftest.render(difftest.run_scenario(s, fn))
        with pgwire.Conn.raw(s.host, s.port) as c:
            c.send(pgwire.startup_packet({"user": s.user, "database": "postgres"}))
            m = c.recv()
        mechs = [x for x in m.fields[1].split(b"\x00") if x] if m.type == "R" else m
        ok = pgwire.Conn.connect(s.host, s.port, user=s.user, password=s.password)
        ok_rows = ok.simple("SELECT 'authenticated'")
        ok.close()
        bad = pgwire.Conn.raw(s.host, s.port)
        err = [_norm(difftest.format_msg(x, difftest._Ctx()), s) for x in
               bad.startup(user=s.user, password="wrong-password")]
        bad.close()
        return lines, mechs, ok_rows, err
    ref = differential(pg_scram, server_scram, observe)
    assert ref[1] == [b"SCRAM-SHA-256"]


def test_psycopg_scram(pg_scram, server_scram):
    def observe(s):
        out = []
        with psycopg.connect(s.conninfo, connect_timeout=10) as conn:
            out.append(conn.execute("SELECT 'in', current_user = %s", [s.user]).fetchone())
        try:
            psycopg.connect(s.conninfo.replace(s.password, "wrong"), connect_timeout=10).close()
            out.append("connected with wrong password")
        except psycopg.OperationalError as e:
            msg = _norm(str(e), s)
            out.append(msg[msg.find("FATAL"):].splitlines()[0] if "FATAL" in msg else msg)
        return out
    differential(pg_scram, server_scram, observe)


def test_asyncpg_scram(pg_scram, server_scram):
    async def observe(s):
        out = []
        conn = await asyncpg.connect(host=s.host, port=s.port, user=s.user, password=s.password,
                                     database="postgres", ssl=False, timeout=10)
        out.append(await conn.fetchval("SELECT 'in'"))
        await conn.close()
        try:
            conn = await asyncpg.connect(host=s.host, port=s.port, user=s.user, password="wrong",
                                         database="postgres", ssl=False, timeout=10)
            await conn.close()
            out.append("connected with wrong password")
        except asyncpg.PostgresError as e:
            out.append((type(e).__name__, e.sqlstate, _norm(str(e), s)))
        return out
    ref = differential(pg_scram, server_scram, lambda s: arun(observe(s)))
    assert ref[1][1] == "28P01"


def test_psql_password(pg_scram, server_scram):
    def observe(s):
        good = run_tool(s, [pg_tool("psql"), "-X", "-w", "-c", "SELECT 'in'"])
        env_bad = s.env()
        env_bad["PGPASSWORD"] = "wrong"
        import subprocess
        bad = subprocess.run([pg_tool("psql"), "-X", "-w", "-c", "SELECT 1"], env=env_bad, capture_output=True,
                             text=True, timeout=60)
        return good.returncode, good.stdout, bad.returncode, _norm(bad.stderr, s)
    differential(pg_scram, server_scram, observe)
