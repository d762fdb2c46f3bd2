"""Advisory locks between real connections, run against threadgres and PostgreSQL 15 alike.

Blocking and its wake-up, the try variants, shared against exclusive, a deadlock of two
sessions (40P01), release at session end and when the client disconnects, transaction-level
locks released by ROLLBACK, lock_timeout, and pg_locks' rows while a session waits. The
single-session behaviour (counts, warnings, pg_locks' keys) is the differential case
tests/py/diff/advisory_locks.sql.
"""

from __future__ import annotations

import time

import pgwire
from polling import wait_until


def waiting(admin: pgwire.Conn, key: int) -> list[tuple]:
    return admin.simple(
        "SELECT mode, granted FROM pg_locks WHERE locktype = 'advisory' "
        f"AND objid = {key} AND NOT granted")


def error_of(msgs) -> pgwire.Msg:
    errs = [m for m in msgs if m.type == "E"]
    assert errs, msgs
    return errs[0]


def test_lock_blocks_until_unlock(server):
    a, b, admin = server.connect_raw(), server.connect_raw(), server.connect_raw()
    a.simple("SELECT pg_advisory_lock(7101)")
    assert b.simple("SELECT pg_try_advisory_lock(7101)") == [("f",)]
    b.send_query("SELECT pg_advisory_lock(7101), 'got it'")
    wait_until(lambda: waiting(admin, 7101) == [("ExclusiveLock", "f")], "b is shown waiting")
    wait_ev = admin.simple(
        "SELECT wait_event_type, wait_event FROM pg_stat_activity "
        "WHERE query LIKE 'SELECT pg_advisory_lock(7101), %'")
    assert wait_ev == [("Lock", "advisory")]
    # Re-entrant: a needs two unlocks.
    a.simple("SELECT pg_advisory_lock(7101)")
    assert a.simple("SELECT pg_advisory_unlock(7101)") == [("t",)]
    # (threadgres may have sent the RowDescription; no row, no completion)
    assert not [m for m in b.read_available(wait=0.3) if m.type in "DC"]
    assert a.simple("SELECT pg_advisory_unlock(7101)") == [("t",)]
    msgs = b.read_until_ready(timeout=5)
    assert [m for m in msgs if m.type == "D"], msgs
    assert admin.simple(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 7101 "
        "AND granted") == [("1",)]
    assert b.simple("SELECT pg_advisory_unlock_all()") == [("",)]
    for c in (a, b, admin):
        c.close()


def test_shared_and_exclusive(server):
    a, b, c = server.connect_raw(), server.connect_raw(), server.connect_raw()
    a.simple("SELECT pg_advisory_lock_shared(7102)")
    assert b.simple("SELECT pg_try_advisory_lock_shared(7102)") == [("t",)]
    assert c.simple("SELECT pg_try_advisory_lock(7102)") == [("f",)]
    assert c.simple("SELECT pg_try_advisory_xact_lock(7102)") == [("f",)]
    a.simple("SELECT pg_advisory_unlock_shared(7102)")
    assert c.simple("SELECT pg_try_advisory_lock(7102)") == [("f",)]
    b.simple("SELECT pg_advisory_unlock_shared(7102)")
    assert c.simple("SELECT pg_try_advisory_lock(7102)") == [("t",)]
    # Two int4 keys are another lock than one bigint.
    assert a.simple("SELECT pg_try_advisory_lock(0, 7102)") == [("t",)]
    for x in (a, b, c):
        x.simple("SELECT pg_advisory_unlock_all()")
        x.close()


def test_deadlock_is_detected(server):
    a, b, admin = server.connect_raw(), server.connect_raw(), server.connect_raw()
    a.simple("SELECT pg_advisory_lock(7103)")
    b.simple("SELECT pg_advisory_lock(7104)")
    a.send_query("SELECT pg_advisory_lock(7104)")
    wait_until(lambda: waiting(admin, 7104), "a waits")
    b.send_query("SELECT pg_advisory_lock(7103)")
    # One of the two is chosen (PostgreSQL: the first whose deadlock_timeout runs out;
    # threadgres: the one that closes the cycle); its locks are its session's and stay.
    deadline = time.monotonic() + 10
    loser = None
    while loser is None:
        assert time.monotonic() < deadline, "no deadlock reported"
        for c, mine in ((a, 7103), (b, 7104)):
            msgs = c.read_available(wait=0.05)
            errs = [m for m in msgs if m.type == "E"]
            if errs:
                assert errs[0].sqlstate == "40P01", errs
                assert errs[0].message == "deadlock detected", errs
                if not [m for m in msgs if m.type == "Z"]:
                    c.read_until_ready(timeout=5)
                loser, winner, key = c, (b if c is a else a), mine
    assert not [m for m in winner.read_available(wait=0.2) if m.type in "DC"]
    loser.simple(f"SELECT pg_advisory_unlock({key})")
    msgs = winner.read_until_ready(timeout=5)
    assert not [m for m in msgs if m.type == "E"], msgs
    for x in (a, b, admin):
        x.simple("SELECT pg_advisory_unlock_all()")
        x.close()


def test_session_end_and_disconnect_release(server):
    admin = server.connect_raw()
    a = server.connect_raw()
    a.simple("SELECT pg_advisory_lock(7105), pg_advisory_lock_shared(1, 7105)")
    a.send(pgwire.frame(b"X", b""))  # Terminate
    a.close()
    b = server.connect_raw()
    wait_until(lambda: b.simple("SELECT pg_try_advisory_lock(7105)") == [("t",)],
               "released at session end")
    # A client that drops its socket (no Terminate) while another waits for its lock.
    c = server.connect_raw()
    c.send_query("SELECT pg_advisory_lock(7105)")
    wait_until(lambda: waiting(admin, 7105), "c waits")
    b.sock.close()
    msgs = c.read_until_ready(timeout=10)
    assert not [m for m in msgs if m.type == "E"], msgs
    assert admin.simple(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 7105") == [("1",)]
    c.simple("SELECT pg_advisory_unlock_all()")
    c.close()
    admin.close()


def test_xact_locks_go_at_rollback_session_locks_stay(server):
    a, b = server.connect_raw(), server.connect_raw()
    a.simple("BEGIN")
    a.simple("SELECT pg_advisory_xact_lock(7106), pg_advisory_lock(7107)")
    b.send_query("SELECT pg_advisory_xact_lock(7106), 'b has it'")
    assert not [m for m in b.read_available(wait=0.3) if m.type in "DC"]
    a.simple("ROLLBACK")
    msgs = b.read_until_ready(timeout=5)
    assert not [m for m in msgs if m.type == "E"], msgs
    # b's transaction ended with its statement: 7106 is free, a still holds 7107.
    assert b.simple("SELECT pg_try_advisory_lock(7106), pg_try_advisory_lock(7107)") == [("t", "f")]
    # An error in a block releases its transaction-level locks at once.
    a.simple("BEGIN")
    a.simple("SELECT pg_advisory_xact_lock(7108)")
    a.query("SELECT 1/0")
    assert b.simple("SELECT pg_try_advisory_xact_lock(7108)") == [("t",)]
    a.simple("ROLLBACK")
    for x in (a, b):
        x.simple("SELECT pg_advisory_unlock_all()")
        x.close()


def test_lock_timeout_and_cancel(server):
    a, b = server.connect_raw(), server.connect_raw()
    a.simple("SELECT pg_advisory_lock(7109)")
    b.simple("SET lock_timeout = 200")
    e = error_of(b.query("SELECT pg_advisory_lock(7109)", timeout=5))
    assert e.sqlstate == "55P03", e
    b.simple("SET lock_timeout = 0; SET statement_timeout = 200")
    # Nested in an expression the call waits in place, and times out the same way.
    e = error_of(b.query("SELECT 1 WHERE pg_advisory_lock(7109) IS NOT NULL", timeout=5))
    assert e.sqlstate == "57014", e
    b.simple("SET statement_timeout = 0")
    assert b.simple("SELECT pg_try_advisory_lock(7109)") == [("f",)]
    a.simple("SELECT pg_advisory_unlock(7109)")
    assert b.simple("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                    "AND objid = 7109") == [("0",)]
    for x in (a, b):
        x.close()
