"""PL/pgSQL at its limits, on PostgreSQL 15 and threadgres alike (issue 32): a loop that never
ends is stopped by statement_timeout and by a CancelRequest, a function that calls itself
without end stops at the stack-depth limit (54001), an exception block catches the error and
undoes its writes, and the session goes on after each."""

from __future__ import annotations

import time

import pytest

import pgwire


def error_of(msgs) -> pgwire.Msg:
    errs = [m for m in msgs if m.type == "E"]
    assert errs, msgs
    return errs[0]


def test_endless_loop_stops_at_statement_timeout(server):
    c = server.connect_raw()
    c.simple("SET statement_timeout = 300")
    e = error_of(c.query("DO $$ BEGIN LOOP END LOOP; END $$", timeout=20))
    assert e.sqlstate == "57014", e
    c.simple("SET statement_timeout = 0")
    assert c.simple("SELECT 1") == [("1",)]
    c.close()


def test_endless_loop_stops_at_cancel_request(server):
    c = server.connect_raw()
    c.send_query("DO $$ DECLARE n bigint := 0; BEGIN LOOP n := n + 1; END LOOP; END $$")
    time.sleep(0.5)
    pgwire.cancel_request(server.host, server.port, c.pid, c.secret)
    msgs = c.read_until_ready(timeout=20)
    e = error_of(msgs)
    assert e.sqlstate == "57014", e
    assert c.simple("SELECT 2") == [("2",)]
    c.close()


def test_endless_recursion_stops_at_stack_depth(server):
    c = server.connect_raw()
    c.simple("DROP FUNCTION IF EXISTS pl_lim_rec(int)")
    c.simple("CREATE FUNCTION pl_lim_rec(n int) RETURNS int LANGUAGE plpgsql AS "
             "$$ BEGIN RETURN pl_lim_rec(n + 1); END $$")
    e = error_of(c.query("SELECT pl_lim_rec(1)", timeout=60))
    assert e.sqlstate == "54001", e
    # Caught by an exception block, it is an ordinary error.
    assert c.simple("DO $$ BEGIN PERFORM pl_lim_rec(1); EXCEPTION WHEN statement_too_complex "
                    "THEN RAISE NOTICE 'caught'; END $$") == []
    assert c.simple("SELECT 3") == [("3",)]
    c.simple("DROP FUNCTION pl_lim_rec(int)")
    c.close()


@pytest.mark.parametrize("server", ["threadgres"], indirect=True)
def test_set_returning_result_stops_at_its_memory_bound(server):
    """threadgres-only: PostgreSQL's tuplestore spills a large result to disk; threadgres keeps
    a set-returning function's rows (and a PL/pgSQL cursor's) in memory up to WORK_MEM (256 MB)
    and fails with 54000 past it, and the session goes on."""
    c = server.connect_raw()
    c.simple("DROP FUNCTION IF EXISTS pl_lim_big(int), pl_lim_cur(int)")
    c.simple("CREATE FUNCTION pl_lim_big(n int) RETURNS SETOF text LANGUAGE plpgsql AS "
             "$$ BEGIN RETURN QUERY SELECT repeat('x', 1000000) FROM generate_series(1, n); END $$")
    assert c.simple("SELECT count(*) FROM pl_lim_big(10)") == [("10",)]
    e = error_of(c.query("SELECT count(*) FROM pl_lim_big(400)", timeout=120))
    assert e.sqlstate == "54000", e
    assert "exceeds the memory limit of 256 MB" in e.message, e
    c.simple("CREATE FUNCTION pl_lim_cur(n int) RETURNS int LANGUAGE plpgsql AS "
             "$$ DECLARE c CURSOR FOR SELECT repeat('y', 1000000) FROM generate_series(1, n); "
             "t text; BEGIN OPEN c; FETCH LAST FROM c INTO t; RETURN length(t); END $$")
    assert c.simple("SELECT pl_lim_cur(5)") == [("1000000",)]
    e = error_of(c.query("SELECT pl_lim_cur(400)", timeout=120))
    assert e.sqlstate == "54000", e
    assert c.simple("SELECT count(*) FROM pl_lim_big(2)") == [("2",)]
    assert c.simple("SELECT 4") == [("4",)]
    c.simple("DROP FUNCTION pl_lim_big(int), pl_lim_cur(int)")
    c.close()
