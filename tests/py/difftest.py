"""Differential testing: run the same script against PostgreSQL 15 and a target
server and compare, message by message, what every session received.

Building blocks:

  Scenario(server)           a set of named sessions on one server
    s = sc.session("s1")     connect (startup messages are not recorded)
    s.q(sql)                 simple Query, record everything through ReadyForQuery
    s.x(sql, params, ...)    unnamed Parse/Bind/Describe/Execute/Sync
    s.parse/bind/describe/execute/close/flush/sync/raw/...   message level
    s.wait_notify(n)         wait (bounded) until n NotificationResponses arrived
    sc.transcripts()         {label: [normalized lines]}

  run_differential(pg, target, fn)   runs fn(Scenario) on both, asserts equality.

Every received message becomes one normalized text line (see format_msg), e.g.

    < RowDescription [a:int4(23) len=4 mod=-1 fmt=0]
    < DataRow ['1', NULL]
    < ErrorResponse S=ERROR V=ERROR C=42601 M='syntax error at or near "x"' P=8
    < NotificationResponse pid=<s2> channel='ch' payload=''

What is normalized: backend pids (replaced by the session label), secret keys,
the server_version ParameterStatus value, and the fields of Error/Notice
responses outside ERROR_FIELDS (file, line, routine, where). Values that differ
by nature (now(), pids inside rows) should be kept out of the scripts or masked
with the per-call `mask` option.

An I/O problem (timeout, closed connection, garbage) is recorded as a line that
starts with '!' and ends that session; it then shows up in the diff instead of
raising.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import pytest

import pgwire

# Error/Notice fields that must match (see pgwire.ERROR_FIELDS for the letters).
ERROR_FIELDS = os.environ.get("DIFF_ERROR_FIELDS", "SVCMDHPpqstcdn")

TYPE_NAMES = {
    16: "bool", 17: "bytea", 18: "char", 19: "name", 20: "int8", 21: "int2", 23: "int4", 24: "regproc",
    25: "text", 26: "oid", 114: "json", 142: "xml", 700: "float4", 701: "float8", 705: "unknown",
    1000: "_bool", 1001: "_bytea", 1005: "_int2", 1007: "_int4", 1009: "_text", 1014: "_bpchar",
    1015: "_varchar", 1016: "_int8", 1021: "_float4", 1022: "_float8", 1028: "_oid", 1042: "bpchar",
    1043: "varchar", 1082: "date", 1083: "time", 1114: "timestamp", 1115: "_timestamp", 1182: "_date",
    1184: "timestamptz", 1185: "_timestamptz", 1186: "interval", 1187: "_interval", 1231: "_numeric",
    1266: "timetz", 1700: "numeric", 2205: "regclass", 2206: "regtype", 2249: "record", 2278: "void",
    2950: "uuid", 3802: "jsonb", 1003: "_name", 2211: "_regtype", 2287: "_record",
}

NORMALIZED_PARAMS = {"server_version"}

# Value masks for DataRow text (see Session._mask_fn and the @mask directive).
# Timestamps keep their shape (digits become N, fractional seconds are dropped),
# so the output format is still compared.
_TS_RE = re.compile(r"-?\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:[+-]\d{2}(?::\d{2})?)?"
                    r"|\b\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}(?::\d{2})?)?")
_VERSION_RE = re.compile(r"PostgreSQL \d+\.\d+[^']*")


def _mask_timestamps(s: str) -> str:
    return _TS_RE.sub(lambda m: re.sub(r"\d", "N", re.sub(r"\.\d+", "", m.group(0))), s)


def _mask_version(s: str) -> str:
    return _VERSION_RE.sub("PostgreSQL <version>", s)


MASKS = {"timestamps": _mask_timestamps, "version": _mask_version}


def type_name(oid: int) -> str:
    # Types made by CREATE TYPE (or a table's row type) get OIDs the two servers number
    # differently: compared as "a user type".
    if oid >= 16384:
        return "user(>=16384)"
    return f"{TYPE_NAMES.get(oid, '?')}({oid})"


def _q(b: bytes) -> str:
    """Printable form of a value: text if it decodes, else hex."""
    try:
        s = b.decode("utf-8")
        if all(c.isprintable() or c in "\t\n" for c in s):
            return repr(s)
    except UnicodeDecodeError:
        pass
    return "x'" + b.hex() + "'"


@dataclass
class _Ctx:
    pid_labels: dict = field(default_factory=dict)  # pid -> label
    formats: tuple = ()                              # result formats of the current row set
    error_fields: str = ERROR_FIELDS                 # the Error/Notice fields recorded


def format_msg(m: pgwire.Msg, ctx: _Ctx, mask: Optional[Callable[[str], str]] = None) -> str:
    t, f = m.type, m.fields
    if t == "T":
        ctx.formats = tuple(c.format for c in f)
        cols = []
        for c in f:
            s = f"{c.name}:{type_name(c.type_oid)} len={c.typlen} mod={c.typmod} fmt={c.format}"
            if c.table_oid or c.attnum:
                s += f" tbl={'yes' if c.table_oid else 0} att={c.attnum}"
            cols.append(s)
        return f"RowDescription [{', '.join(cols)}]"
    if t == "D":
        vals = []
        for i, v in enumerate(f):
            if v is None:
                vals.append("NULL")
                continue
            binary = i < len(ctx.formats) and ctx.formats[i] == 1
            s = ("x'" + v.hex() + "'") if binary else _q(v)
            if mask is not None:
                s = mask(s)
            vals.append(s)
        return f"DataRow [{', '.join(vals)}]"
    if t in "EN":
        parts = [f"{k}={f[k]!r}" if k not in "SVC" else f"{k}={f[k]}" for k in ctx.error_fields if k in f]
        return f"{m.name} " + " ".join(parts)
    if t == "A":
        pid, chan, payload = f
        return f"NotificationResponse pid={ctx.pid_labels.get(pid, '<unknown pid>')} channel={chan!r} payload={payload!r}"
    if t == "S":
        name, value = f
        if name in NORMALIZED_PARAMS:
            value = "<normalized>"
        return f"ParameterStatus {name}={value!r}"
    if t == "K":
        return "BackendKeyData"
    if t == "Z":
        return f"ReadyForQuery {f}"
    if t == "C":
        return f"CommandComplete {f!r}"
    if t == "t":
        return f"ParameterDescription [{', '.join(type_name(o) for o in f)}]"
    if t in "GHW":
        fmt, cols = f
        ctx.formats = tuple(cols)
        return f"{m.name} fmt={fmt} cols={list(cols)}"
    if t == "d":
        return f"CopyData {_q(f)}"
    if t == "R":
        return f"Authentication {pgwire.AUTH_NAMES.get(f[0], f[0])}"
    if t == "v":
        return f"NegotiateProtocolVersion {f!r}"
    return m.name


def _short(sql: Any, limit: int = 200) -> str:
    s = sql if isinstance(sql, str) else repr(sql)
    return repr(s if len(s) <= limit else s[:limit] + "...")


class Session:
    """One recorded connection inside a Scenario."""

    def __init__(self, scenario: "Scenario", label: str, conn: pgwire.Conn):
        self.sc = scenario
        self.label = label
        self.conn = conn
        self.lines: list[str] = []
        self.dead = False
        self.ctx = scenario.ctx
        self.received: list[pgwire.Msg] = []

    # -- recording ---------------------------------------------------------
    def note(self, text: str) -> None:
        """Record a client action; the step number orders actions across sessions."""
        self.sc.step += 1
        self.lines.append(f"> #{self.sc.step} {text}")

    def _record(self, msgs: Sequence[pgwire.Msg], mask=None) -> list[pgwire.Msg]:
        for m in msgs:
            self.received.append(m)
            self.lines.append("< " + format_msg(m, self.ctx, mask))
        return list(msgs)

    def _io(self, fn: Callable[[], list], mask=None) -> list[pgwire.Msg]:
        """Run a reading step; record its messages or the failure."""
        if self.dead:
            self.lines.append("! (session already ended)")
            return []
        collected: list[pgwire.Msg] = []
        try:
            collected = fn(collected)
            return self._record(collected, mask)
        except pgwire.ConnectionClosed:
            self._record(collected, mask)
            self.lines.append("! connection closed by server")
        except pgwire.Timeout:
            self._record(collected, mask)
            self.lines.append("! timeout waiting for the server")
        except (pgwire.ProtocolViolation, OSError) as e:
            self._record(collected, mask)
            self.lines.append(f"! {type(e).__name__}: {e}")
        self.dead = True
        self.conn.close()
        return collected

    def _read_until(self, types: str, timeout: Optional[float] = None):
        def fn(acc):
            while True:
                m = self.conn.recv(timeout)
                acc.append(m)
                if m.type in types:
                    return acc
        return fn

    def _send(self, action: Callable[[], None]) -> bool:
        if self.dead:
            return False
        try:
            action()
            return True
        except OSError as e:
            self.lines.append(f"! send failed: {type(e).__name__}")
            self.dead = True
            return False

    def _mask_fn(self, mask):
        """mask: None, True (= pids), a str->str function, or a collection of names from MASKS
        ('pids', 'timestamps', 'version') applied to each printed DataRow value."""
        if mask is None:
            return None
        pid_map = {repr(str(pid)): f"pid{lab}" for pid, lab in self.ctx.pid_labels.items()}
        names = {"pids"} if mask is True else ({mask} if isinstance(mask, str) else
                                               set() if callable(mask) else set(mask))
        unknown = names - set(MASKS) - {"pids"}
        if unknown:
            raise ValueError(f"unknown masks {unknown}")

        def f(s: str) -> str:
            if "pids" in names:
                s = pid_map.get(s, s)
            for n in sorted(names - {"pids"}):
                s = MASKS[n](s)
            if callable(mask):
                s = mask(s)
            return s
        return f

    # -- simple protocol -----------------------------------------------------
    def q(self, sql: str, mask=None, timeout: Optional[float] = None, show: Optional[str] = None) -> list[pgwire.Msg]:
        """Simple Query. mask: True/'pids' to replace session pids in DataRows, or a str->str function.
        show: text to record instead of the SQL (for SQL that embeds pids or other run-specific values)."""
        self.note(f"Query {_short(sql) if show is None else show}")
        if not self._send(lambda: self.conn.send_query(sql)):
            self.lines.append("! (session already ended)")
            return []
        return self._io(self._read_until("Z", timeout), self._mask_fn(mask))

    def send_query(self, sql: str, show: Optional[str] = None) -> None:
        """Send a Query without reading its answer (read later with read_until / wait)."""
        self.note(f"Query {_short(sql) if show is None else show} (no wait)")
        self._send(lambda: self.conn.send_query(sql))

    # -- extended protocol ---------------------------------------------------
    def parse(self, name: str, sql: str, types: Sequence[int] = ()) -> "Session":
        self.note(f"Parse {name!r} {_short(sql)} types={list(types)}")
        self.conn.parse(name, sql, types)
        return self

    def bind(self, portal: str = "", stmt: str = "", params: Sequence[Any] = (),
             formats: Sequence[int] = (), result_formats: Sequence[int] = ()) -> "Session":
        self.note(f"Bind {portal!r} {stmt!r} params={[pgwire.encode_param(p) for p in params]} "
                  f"formats={list(formats)} result_formats={list(result_formats)}")
        self.conn.bind(portal, stmt, params, formats, result_formats)
        return self

    def describe(self, kind: str = "P", name: str = "") -> "Session":
        self.note(f"Describe {kind} {name!r}")
        self.conn.describe(kind, name)
        return self

    def execute(self, portal: str = "", max_rows: int = 0) -> "Session":
        self.note(f"Execute {portal!r} max_rows={max_rows}")
        self.conn.execute(portal, max_rows)
        return self

    def close(self, kind: str = "S", name: str = "") -> "Session":
        self.note(f"Close {kind} {name!r}")
        self.conn.close_(kind, name)
        return self

    def copy_data(self, data: bytes) -> "Session":
        self.note(f"CopyData {_q(data)}")
        self.conn.copy_data(data)
        return self

    def copy_done(self) -> "Session":
        self.note("CopyDone")
        self.conn.copy_done()
        return self

    def copy_fail(self, msg: str) -> "Session":
        self.note(f"CopyFail {msg!r}")
        self.conn.copy_fail(msg)
        return self

    def sync(self, mask=None, timeout: Optional[float] = None) -> list[pgwire.Msg]:
        """Send Sync (and everything buffered), record messages through ReadyForQuery."""
        self.note("Sync")
        if not self._send(self.conn.send_sync):
            self.lines.append("! (session already ended)")
            return []
        return self._io(self._read_until("Z", timeout), self._mask_fn(mask))

    def flush(self, expect: int, mask=None, timeout: Optional[float] = None) -> list[pgwire.Msg]:
        """Send Flush (and everything buffered), record exactly `expect` messages."""
        self.note(f"Flush (expect {expect})")
        if not self._send(self.conn.flush):
            self.lines.append("! (session already ended)")
            return []
        return self.read(expect, mask, timeout)

    def push(self) -> None:
        """Write the buffered messages without Sync/Flush."""
        self.note("(write buffered messages)")
        self._send(self.conn.push)

    def read(self, n: int, mask=None, timeout: Optional[float] = None) -> list[pgwire.Msg]:
        """Record the next n messages."""
        def fn(acc):
            for _ in range(n):
                acc.append(self.conn.recv(timeout))
            return acc
        return self._io(fn, self._mask_fn(mask))

    def read_until(self, types: str, mask=None, timeout: Optional[float] = None) -> list[pgwire.Msg]:
        return self._io(self._read_until(types, timeout), self._mask_fn(mask))

    def x(self, sql: str, params: Sequence[Any] = (), types: Sequence[int] = (), formats: Sequence[int] = (),
          result_formats: Sequence[int] = (), describe: bool = True, mask=None) -> list[pgwire.Msg]:
        """Unnamed Parse/Bind/[Describe P]/Execute/Sync."""
        self.parse("", sql, types).bind("", "", params, formats, result_formats)
        if describe:
            self.describe("P", "")
        self.execute("", 0)
        return self.sync(mask)

    # -- raw bytes / connection end -----------------------------------------------
    def raw(self, data: bytes, note: Optional[str] = None) -> None:
        """Send raw bytes (after anything buffered)."""
        self.note(f"raw {note or data[:60]!r}")
        self._send(lambda: self.conn.send(data))

    def expect_close(self, timeout: float = 10.0) -> list[pgwire.Msg]:
        """Record everything until the server closes the connection."""
        def fn(acc):
            while True:
                acc.append(self.conn.recv(timeout))
        return self._io(fn)

    def terminate(self) -> None:
        self.note("Terminate")
        if not self.dead:
            self.conn.close()
            self.dead = True

    def startup(self, user: Optional[str] = None, database: Optional[str] = None,
                params: Optional[dict] = None, password: Optional[str] = None) -> list[pgwire.Msg]:
        """For a raw_session: send StartupMessage, record what follows (sorted ParameterStatus)."""
        user = self.sc.server.user if user is None else user
        database = self.sc.server.database if database is None else database
        self.note(f"StartupMessage user={user!r} database={database!r} params={params!r}")

        def fn(acc):
            acc.extend(sort_parameter_status(self.conn.startup(user, database, password, params)))
            return acc
        msgs = self._io(fn)
        if self.conn.pid is not None:
            self.ctx.pid_labels[self.conn.pid] = f"<{self.label}>"
        return msgs

    def read_byte(self) -> None:
        """Record one raw byte (the answer to SSLRequest / GSSENCRequest)."""
        try:
            self.lines.append(f"< byte {self.conn.recv_byte()!r}")
        except pgwire.PgWireError as e:
            self.lines.append(f"! {type(e).__name__}")
            self.dead = True

    def start_tls(self) -> None:
        """For a raw_session after an 'S' answer: the TLS handshake (recorded as ok or failed)."""
        self.note("TLS handshake")
        if self.dead:
            self.lines.append("! (session already ended)")
            return
        try:
            self.conn.start_tls()
            self.lines.append("< TLS established")
        except OSError as e:
            self.lines.append(f"! TLS handshake failed ({type(e).__name__})")
            self.dead = True

    # -- notifications --------------------------------------------------------------
    def wait_notify(self, n: int = 1, timeout: float = 10.0) -> list[pgwire.Msg]:
        """Record messages until n NotificationResponses arrived (bounded wait) while idle."""
        self.note(f"(idle: wait for {n} notification(s))")
        if self.dead:
            self.lines.append("! (session already ended)")
            return []
        got: list[pgwire.Msg] = []
        try:
            count = 0
            while count < n:
                m = self.conn.recv(timeout)
                got.append(m)
                if m.type == "A":
                    count += 1
        except pgwire.Timeout:
            self._record(got)
            self.lines.append(f"! timeout: only {sum(m.type == 'A' for m in got)} of {n} notification(s) arrived")
            return got
        except pgwire.ConnectionClosed:
            self._record(got)
            self.lines.append("! connection closed by server")
            self.dead = True
            return got
        return self._record(got)


def sort_parameter_status(msgs: Sequence[pgwire.Msg]) -> list[pgwire.Msg]:
    """Sort each run of consecutive ParameterStatus messages by name."""
    out: list[pgwire.Msg] = []
    run: list[pgwire.Msg] = []
    for m in list(msgs) + [None]:
        if m is not None and m.type == "S":
            run.append(m)
            continue
        out.extend(sorted(run, key=lambda x: x.fields[0]))
        run = []
        if m is not None:
            out.append(m)
    return out


class Scenario:
    """Named sessions on one server, with pid normalization shared between them."""

    def __init__(self, server, timeout: float = 10.0):
        self.server = server
        self.timeout = timeout
        self.ctx = _Ctx()
        self.sessions: dict[str, Session] = {}
        self.step = 0

    def session(self, label: str, record_startup: bool = False, **connect_kw) -> Session:
        """Connect a session (pgwire.Conn.connect keywords: user, database, password, params).

        record_startup: put the messages after authentication in the transcript
        (ParameterStatus sorted by name, since their order is not significant).
        """
        assert label not in self.sessions, label
        conn = self.server.connect_raw(timeout=self.timeout, **connect_kw)
        if conn.pid is not None:
            self.ctx.pid_labels[conn.pid] = f"<{label}>"
        s = Session(self, label, conn)
        self.sessions[label] = s
        if record_startup:
            s.note("(startup)")
            s._record(sort_parameter_status(conn.startup_messages))
        return s

    def raw_session(self, label: str) -> Session:
        """A session whose socket is connected but has sent no StartupMessage."""
        conn = pgwire.Conn.raw(self.server.host, self.server.port, self.timeout)
        s = Session(self, label, conn)
        self.sessions[label] = s
        return s

    def transcripts(self) -> dict[str, list[str]]:
        return {k: list(s.lines) for k, s in self.sessions.items()}

    def close(self) -> None:
        for s in self.sessions.values():
            s.conn.close()


def wait_database_unused(server, database: str, timeout: float = 10.0) -> None:
    """Poll pg_stat_activity (unrecorded connection) until no session uses `database`.

    Closing a connection is asynchronous on the server side; scenarios call this
    before DROP DATABASE so that the outcome does not depend on how fast the
    server notices the close.
    """
    import time
    deadline = time.monotonic() + timeout
    with server.connect_raw() as mon:
        while time.monotonic() < deadline:
            r = mon.simple(f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{database}'")
            if r and r[0][0] == "0":
                return
            time.sleep(0.02)


def render(transcripts: dict[str, list[str]]) -> list[str]:
    out = []
    for label, lines in transcripts.items():
        out.append(f"=== session {label}")
        out.extend(lines)
    return out


def run_scenario(server, fn: Callable[[Scenario], None], timeout: float = 10.0) -> dict[str, list[str]]:
    sc = Scenario(server, timeout)
    try:
        fn(sc)
    finally:
        sc.close()
    return sc.transcripts()


def assert_same(reference: list[str], target: list[str], target_name: str, header: str = "") -> None:
    if reference == target:
        return
    diff = "\n".join(difflib.unified_diff(reference, target, "pg15", target_name, n=4, lineterm=""))
    pytest.fail(f"{header}message sequences differ (- pg15, + {target_name}):\n{diff}", pytrace=False)


def check_reference(lines: list[str], expect_errors: Optional[bool] = None, allow_bang: bool = False) -> None:
    """Sanity checks on a PG15 transcript so that a broken test case cannot pass silently."""
    if not allow_bang:
        bangs = [l for l in lines if l.startswith("!") and l != "! connection closed by server"]
        if bangs:
            pytest.fail("test case problem: PostgreSQL 15 transcript has I/O failures:\n" + "\n".join(lines),
                        pytrace=False)
    if expect_errors is not None:
        has_err = any(l.startswith("< ErrorResponse") for l in lines)
        if has_err != expect_errors:
            what = "no ErrorResponse although the case is marked @errors" if expect_errors else \
                "an ErrorResponse although the case is not marked @errors"
            pytest.fail(f"test case problem: PostgreSQL 15 returned {what}:\n" + "\n".join(lines), pytrace=False)


_reference_cache: dict = {}


def run_differential(pg, target, fn: Callable[[Scenario], None], key: Optional[str] = None,
                     expect_errors: Optional[bool] = None, allow_bang: bool = False,
                     timeout: float = 10.0) -> dict[str, list[str]]:
    """Run fn on PG15 and on target; fail unless every session's transcript is identical.

    When target is PG15 itself, the scenario runs twice: that checks that the case
    is deterministic and the normalization is sufficient.
    key: cache the PG15 transcript under this key (saves one PG run per case).
    """
    if key is not None and key in _reference_cache:
        ref = _reference_cache[key]
    else:
        ref = run_scenario(pg, fn, timeout)
        if key is not None:
            _reference_cache[key] = ref
    check_reference(render(ref), expect_errors, allow_bang)
    got = run_scenario(target, fn, timeout)
    assert_same(render(ref), render(got), target.name)
    return ref


# --------------------------------------------------------------------------------
# SQL script files (tests/py/diff/*.sql)
# --------------------------------------------------------------------------------

MODES = ("simple", "extended", "binary")


@dataclass
class SqlCase:
    file: str
    name: str
    line: int
    messages: list = field(default_factory=list)   # list of str (one Query each)
    expect_errors: bool = False
    modes: tuple = MODES
    mask: tuple = ()
    context: bool = False                          # compare the W field (CONTEXT lines) too

    @property
    def id(self) -> str:
        return f"{Path(self.file).stem}:{self.name}"

    def source(self) -> str:
        return "\n".join(self.messages)


_DIRECTIVE = re.compile(r"^--\s*@(\w[\w-]*)\s*(.*)$")
_NAME = re.compile(r"^--\s*name:\s*(\S+)\s*$")


def parse_sql_file(path: Path) -> list[SqlCase]:
    """Parse a diff script file.

    Format:
        -- name: case_name          starts a case (names unique per file)
        -- @errors                  the case is expected to produce ErrorResponse(s)
        -- @context                 compare the errors' and notices' CONTEXT (field W) too
        -- @modes simple,extended   protocol modes to run (default: simple,extended,binary)
        -- @raw "..."               send this Python string literal as one message, verbatim
        -- @mask timestamps,pids,version   mask such values in DataRows (text modes only:
                                    a case with @mask runs in simple,extended unless @modes says otherwise)
        SELECT 1;                   one message = lines up to a line ending with ';'
        SELECT 1; SELECT 2;         several statements in one Query message
    Other lines starting with '--' outside a statement are comments.
    """
    cases: list[SqlCase] = []
    cur: Optional[SqlCase] = None
    buf: list[str] = []
    names = set()
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        stripped = line.strip()
        m = _NAME.match(stripped)
        if m:
            if buf:
                raise ValueError(f"{path}:{lineno}: unterminated statement before new case")
            if m.group(1) in names:
                raise ValueError(f"{path}:{lineno}: duplicate case name {m.group(1)}")
            names.add(m.group(1))
            cur = SqlCase(str(path), m.group(1), lineno)
            cases.append(cur)
            continue
        d = _DIRECTIVE.match(stripped)
        if d and not buf:
            if cur is None:
                raise ValueError(f"{path}:{lineno}: directive before the first '-- name:'")
            key, arg = d.group(1), d.group(2).strip()
            if key == "errors":
                cur.expect_errors = True
            elif key == "context":
                cur.context = True
            elif key == "modes":
                modes = tuple(x.strip() for x in arg.split(",") if x.strip())
                bad = set(modes) - set(MODES)
                if bad:
                    raise ValueError(f"{path}:{lineno}: unknown modes {bad}")
                cur.modes = modes
            elif key == "raw":
                cur.messages.append(ast.literal_eval(arg))
            elif key == "mask":
                cur.mask = tuple(x.strip() for x in arg.split(",") if x.strip())
                bad = set(cur.mask) - set(MASKS) - {"pids"}
                if bad:
                    raise ValueError(f"{path}:{lineno}: unknown masks {bad}")
                if cur.modes == MODES:
                    cur.modes = ("simple", "extended")
            else:
                raise ValueError(f"{path}:{lineno}: unknown directive @{key}")
            continue
        if not buf and (not stripped or stripped.startswith("--")):
            continue
        if cur is None:
            raise ValueError(f"{path}:{lineno}: SQL before the first '-- name:'")
        buf.append(line)
        if stripped.endswith(";"):
            cur.messages.append("\n".join(buf))
            buf = []
    if buf:
        raise ValueError(f"{path}: unterminated statement at end of file")
    for c in cases:
        if not c.messages:
            raise ValueError(f"{path}: case {c.name} has no statements")
    return cases


def sql_case_scenario(case: SqlCase, mode: str) -> Callable[[Scenario], None]:
    def fn(sc: Scenario) -> None:
        s = sc.session("s1")
        if case.context:
            s.ctx.error_fields += "W"
        mask = case.mask or None
        for msg in case.messages:
            if mode == "simple":
                s.q(msg, mask=mask)
            elif mode == "extended":
                s.x(msg, mask=mask)
            else:
                s.x(msg, result_formats=[1], mask=mask)
    return fn
