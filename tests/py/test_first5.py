"""Issue 20 behaviours that need a raw connection or more than one session: ending one's own
session (pg_terminate_backend / pg_cancel_backend of pg_backend_pid()), the start-up order
(authentication before anything about databases or parameters is said), compared between
threadgres and PostgreSQL 15 message by message."""

from __future__ import annotations

import uuid

import pytest

from pgwire import Conn, ConnectionClosed, Timeout

FIELDS = ("S", "C", "M", "D", "H")


def norm(msgs) -> list:
    out = []
    for m in msgs:
        name = m.name
        if name in ("ErrorResponse", "NoticeResponse"):
            out.append((name, tuple((k, m.fields.get(k)) for k in FIELDS if m.fields.get(k))))
        elif name == "DataRow":
            out.append((name, tuple(m.fields)))
        elif name in ("CommandComplete", "ReadyForQuery"):
            out.append((name, m.fields))
        elif name == "RowDescription":
            out.append((name, tuple((c.name, c.type_oid) for c in m.fields)))
        else:
            out.append((name,))
    return out


def until_closed_or_ready(c: Conn) -> list:
    """Messages up to ReadyForQuery, or up to the end of the connection (marked 'closed')."""
    got = []
    try:
        while True:
            m = c.recv(timeout=5)
            got.append(m)
            if m.name == "ReadyForQuery":
                return norm(got)
    except ConnectionClosed:
        return norm(got) + [("closed",)]


def run_both(pg, tg, fn):
    a, b = fn(pg), fn(tg)
    assert b == a, f"threadgres:\n{b}\npg15:\n{a}"
    return a


def connect(info) -> Conn:
    return Conn.connect(info.host, info.port, user=info.user, database=info.database)


TERMINATE_QUERIES = [
    "SELECT pg_terminate_backend(pg_backend_pid())",
    "SELECT 1 AS a UNION ALL SELECT 2; SELECT pg_terminate_backend(pg_backend_pid()), 5; SELECT 3",
    "BEGIN; SELECT pg_terminate_backend(pg_backend_pid())",
    "SELECT pg_terminate_backend(pg_backend_pid(), 100)",
    "SELECT g FROM generate_series(1, 4) g WHERE g < 2 OR pg_terminate_backend(pg_backend_pid())",
]


@pytest.mark.parametrize("query", TERMINATE_QUERIES)
def test_terminate_own_session(pg, tg, query):
    def fn(info):
        c = connect(info)
        c.send_query(query)
        return until_closed_or_ready(c)

    got = run_both(pg, tg, fn)
    assert got[-1] == ("closed",)


def test_terminate_own_session_extended(pg, tg):
    def fn(info):
        c = connect(info)
        c.parse("", "SELECT pg_terminate_backend(pg_backend_pid())")
        c.bind("", "", [])
        c.describe("P")
        c.execute()
        c.send_sync()
        return until_closed_or_ready(c)

    run_both(pg, tg, fn)


def test_terminate_negative_timeout(pg, tg):
    def fn(info):
        c = connect(info)
        c.send_query("SELECT pg_terminate_backend(pg_backend_pid(), -1)")
        return until_closed_or_ready(c)

    run_both(pg, tg, fn)


def test_terminated_transaction_rolls_back(pg, tg):
    def fn(info):
        t = "f5_term_" + uuid.uuid4().hex[:8]
        c = connect(info)
        c.query(f"CREATE TABLE {t} (a int)")
        c.send_query(f"BEGIN; INSERT INTO {t} VALUES (1); SELECT pg_terminate_backend(pg_backend_pid())")
        first = until_closed_or_ready(c)
        d = connect(info)
        # The row is gone, and nothing of the transaction holds the table.
        rows = norm(d.query(f"INSERT INTO {t} VALUES (2); SELECT a FROM {t}"))
        d.query(f"DROP TABLE {t}")
        return first, rows

    run_both(pg, tg, fn)


CANCEL_QUERIES = [
    "SELECT pg_cancel_backend(pg_backend_pid())",
    "SELECT pg_cancel_backend(pg_backend_pid()), 1 FROM generate_series(1, 3)",
    "SELECT 1 FROM generate_series(1, 3) g WHERE g < 3 OR pg_cancel_backend(pg_backend_pid())",
    "BEGIN; SELECT pg_cancel_backend(pg_backend_pid()); SELECT 1",
    "SELECT pg_cancel_backend(pg_backend_pid()); SELECT 2",
]


@pytest.mark.parametrize("query", CANCEL_QUERIES)
def test_cancel_own_statement(pg, tg, query):
    def fn(info):
        c = connect(info)
        c.send_query(query)
        first = until_closed_or_ready(c)
        return first, norm(c.query("SELECT 42"))

    run_both(pg, tg, fn)


# -- start-up order -------------------------------------------------------------------------

def startup_transcript(info, params: dict, password=None) -> list:
    """Every message of a start-up, AuthenticationOk included, up to the FATAL or
    ReadyForQuery; the user's name is replaced by <user>."""
    import struct

    from pgwire import _Scram, _cstr, frame, startup_packet

    c = Conn.raw(info.host, info.port)
    p = {"user": info.user}
    p.update(params)
    c.push(startup_packet(p))
    got = []
    scram = None
    try:
        while True:
            m = c.recv(timeout=5)
            if m.type == "R":
                code, data = m.fields
                got.append(("Authentication", code))
                if code == 10:
                    scram = _Scram(password)
                    first = scram.first()
                    c.push(frame(b"p", _cstr("SCRAM-SHA-256") + struct.pack("!i", len(first)) + first))
                elif code == 11:
                    c.push(frame(b"p", scram.final(data)))
                continue
            if m.type in "SK":
                continue
            got.extend(norm([m]))
            if m.type in "EZ":
                break
    except ConnectionClosed:
        got.append(("closed",))
    c.close()
    return [tuple(str(x).replace(info.user, "<user>") for x in g) for g in got]


STARTUP_CASES = {
    "no_such_database": {"database": "no_such_db_f5"},
    "unknown_parameter": {"database": "postgres", "no_such_param_f5": "1"},
    "bad_parameter_value": {"database": "postgres", "DateStyle": "nonsense"},
    "unknown_option": {"database": "postgres", "options": "-c no_such_param_f5=1"},
    "bad_database_and_parameter": {"database": "no_such_db_f5", "no_such_param_f5": "1"},
}


@pytest.mark.parametrize("case", list(STARTUP_CASES))
def test_startup_errors_come_after_authentication(pg, tg, case):
    run_both(pg, tg, lambda info: startup_transcript(info, STARTUP_CASES[case]))


@pytest.mark.parametrize("case", list(STARTUP_CASES))
def test_startup_wrong_password_says_nothing_else(pg_scram, tg_scram, case):
    fn = lambda info: startup_transcript(info, STARTUP_CASES[case], password="wrong-password")  # noqa: E731
    got = run_both(pg_scram, tg_scram, fn)
    assert got[-1][0] == "ErrorResponse" and "28P01" in str(got[-1]), got


@pytest.mark.parametrize("case", list(STARTUP_CASES))
def test_startup_right_password_then_error(pg_scram, tg_scram, case):
    run_both(pg_scram, tg_scram,
             lambda info: startup_transcript(info, STARTUP_CASES[case], password=info.password))
