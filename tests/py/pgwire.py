"""A small frontend implementation of the PostgreSQL wire protocol v3, for tests.

It speaks raw bytes over a TCP socket and hands back every backend message as
a `Msg(type, name, fields)` with decoded fields, so tests can compare exact
message sequences between threadgres and PostgreSQL.

Typical use::

    c = Conn.connect("127.0.0.1", port)          # StartupMessage, auth, up to ReadyForQuery
    msgs = c.query("SELECT 1")                     # sends Query, returns msgs through ReadyForQuery
    c.parse("s1", "SELECT $1::int", [0]); c.bind("", "s1", [b"5"]); c.describe("P"); c.execute()
    msgs = c.sync()                                # sends Sync (and the buffered messages), reads to 'Z'

Frontend messages are buffered by the `parse`/`bind`/`describe`/`execute`/`close`
methods and only written when `sync()`, `flush()`, `query()`, `send()` or
`push()` is called, so pipelines go out in a single write.

Every read is bounded by a timeout (`Timeout` is raised); a closed socket raises
`ConnectionClosed`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import select
import socket
import struct
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence

PROTOCOL_V3 = 196608  # 3 << 16
SSL_REQUEST_CODE = 80877103
GSSENC_REQUEST_CODE = 80877104
CANCEL_REQUEST_CODE = 80877102

DEFAULT_TIMEOUT = 10.0

BACKEND_NAMES = {
    "R": "Authentication",
    "S": "ParameterStatus",
    "K": "BackendKeyData",
    "Z": "ReadyForQuery",
    "T": "RowDescription",
    "D": "DataRow",
    "C": "CommandComplete",
    "I": "EmptyQueryResponse",
    "E": "ErrorResponse",
    "N": "NoticeResponse",
    "A": "NotificationResponse",
    "1": "ParseComplete",
    "2": "BindComplete",
    "3": "CloseComplete",
    "n": "NoData",
    "s": "PortalSuspended",
    "t": "ParameterDescription",
    "G": "CopyInResponse",
    "H": "CopyOutResponse",
    "W": "CopyBothResponse",
    "d": "CopyData",
    "c": "CopyDone",
    "v": "NegotiateProtocolVersion",
    "V": "FunctionCallResponse",
}

# ErrorResponse / NoticeResponse field codes.
ERROR_FIELDS = {
    "S": "severity",
    "V": "severity_nonlocalized",
    "C": "sqlstate",
    "M": "message",
    "D": "detail",
    "H": "hint",
    "P": "position",
    "p": "internal_position",
    "q": "internal_query",
    "W": "where",
    "s": "schema",
    "t": "table",
    "c": "column",
    "d": "datatype",
    "n": "constraint",
    "F": "file",
    "L": "line",
    "R": "routine",
}

AUTH_NAMES = {
    0: "Ok",
    2: "KerberosV5",
    3: "CleartextPassword",
    5: "MD5Password",
    7: "GSS",
    8: "GSSContinue",
    9: "SSPI",
    10: "SASL",
    11: "SASLContinue",
    12: "SASLFinal",
}


class PgWireError(Exception):
    """Base class of the errors raised by this module."""


class ConnectionClosed(PgWireError):
    """The server closed the connection (EOF on the socket)."""


class Timeout(PgWireError):
    """No (complete) message arrived within the timeout."""


class ProtocolViolation(PgWireError):
    """The server sent something that is not a well-formed backend message."""


class ServerError(PgWireError):
    """An ErrorResponse arrived where the helper expected success."""

    def __init__(self, fields: dict):
        self.fields = fields
        super().__init__(f"{fields.get('S')} {fields.get('C')}: {fields.get('M')}")


@dataclass(frozen=True)
class Column:
    """One field of a RowDescription."""

    name: str
    table_oid: int
    attnum: int
    type_oid: int
    typlen: int
    typmod: int
    format: int


@dataclass(frozen=True)
class Msg:
    """A decoded backend message.

    fields by type:
      R: (auth_code, data bytes)        S: (name, value)      K: (pid, secret)
      Z: status char 'I'/'T'/'E'        T: tuple[Column]      D: tuple[bytes|None]
      C: command tag str                E/N: dict code->str   A: (pid, channel, payload)
      t: tuple[int oid]                 G/H/W: (format, tuple[int])   d: bytes
      v: (minor, tuple[str])            V: bytes|None         others: None
    """

    type: str
    fields: Any = None
    raw: bytes = field(default=b"", repr=False, compare=False)

    @property
    def name(self) -> str:
        return BACKEND_NAMES.get(self.type, f"Unknown({self.type!r})")

    def __repr__(self) -> str:
        return f"<{self.name} {self.fields!r}>"

    # Convenience accessors -------------------------------------------------
    @property
    def sqlstate(self) -> Optional[str]:
        return self.fields.get("C") if self.type in "EN" else None

    @property
    def message(self) -> Optional[str]:
        return self.fields.get("M") if self.type in "EN" else None


# --------------------------------------------------------------------------
# Encoding helpers
# --------------------------------------------------------------------------

def _cstr(s: str | bytes) -> bytes:
    if isinstance(s, str):
        s = s.encode("utf-8")
    return s + b"\x00"


def frame(msg_type: bytes, payload: bytes) -> bytes:
    """A typed frontend message: type byte, int32 length (incl. itself), payload."""
    return msg_type + struct.pack("!i", len(payload) + 4) + payload


def startup_packet(params: dict[str, str], version: int = PROTOCOL_V3) -> bytes:
    body = struct.pack("!i", version)
    for k, v in params.items():
        body += _cstr(k) + _cstr(v)
    body += b"\x00"
    return struct.pack("!i", len(body) + 4) + body


def encode_param(v: Any) -> Optional[bytes]:
    if v is None:
        return None
    if isinstance(v, bytes):
        return v
    if isinstance(v, bool):
        return b"t" if v else b"f"
    return str(v).encode("utf-8")


# --------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------

class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def int32(self) -> int:
        if self.pos + 4 > len(self.data):
            raise ProtocolViolation("truncated int32")
        (v,) = struct.unpack_from("!i", self.data, self.pos)
        self.pos += 4
        return v

    def uint32(self) -> int:
        if self.pos + 4 > len(self.data):
            raise ProtocolViolation("truncated uint32")
        (v,) = struct.unpack_from("!I", self.data, self.pos)
        self.pos += 4
        return v

    def int16(self) -> int:
        if self.pos + 2 > len(self.data):
            raise ProtocolViolation("truncated int16")
        (v,) = struct.unpack_from("!h", self.data, self.pos)
        self.pos += 2
        return v

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise ProtocolViolation("truncated byte")
        v = self.data[self.pos]
        self.pos += 1
        return v

    def bytes(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ProtocolViolation("truncated bytes")
        v = self.data[self.pos : self.pos + n]
        self.pos += n
        return v

    def cstr(self) -> str:
        end = self.data.find(b"\x00", self.pos)
        if end < 0:
            raise ProtocolViolation("unterminated string")
        v = self.data[self.pos : end]
        self.pos = end + 1
        return v.decode("utf-8", errors="backslashreplace")

    def rest(self) -> bytes:
        v = self.data[self.pos :]
        self.pos = len(self.data)
        return v

    def done(self, what: str) -> None:
        if self.pos != len(self.data):
            raise ProtocolViolation(f"{what}: {len(self.data) - self.pos} trailing bytes")


def decode(msg_type: str, payload: bytes) -> Msg:
    """Decode one backend message body (without type byte and length)."""
    r = _Reader(payload)
    t = msg_type
    f: Any
    if t == "R":
        code = r.int32()
        f = (code, r.rest())
    elif t == "S":
        f = (r.cstr(), r.cstr())
        r.done("ParameterStatus")
    elif t == "K":
        f = (r.int32(), r.int32())
        r.done("BackendKeyData")
    elif t == "Z":
        f = chr(r.byte())
        r.done("ReadyForQuery")
    elif t == "T":
        n = r.int16()
        cols = []
        for _ in range(n):
            cols.append(Column(r.cstr(), r.uint32(), r.int16(), r.uint32(), r.int16(), r.int32(), r.int16()))
        r.done("RowDescription")
        f = tuple(cols)
    elif t == "D":
        n = r.int16()
        vals = []
        for _ in range(n):
            ln = r.int32()
            vals.append(None if ln == -1 else r.bytes(ln))
        r.done("DataRow")
        f = tuple(vals)
    elif t == "C":
        f = r.cstr()
        r.done("CommandComplete")
    elif t in "EN":
        d = {}
        while True:
            code = r.byte()
            if code == 0:
                break
            d[chr(code)] = r.cstr()
        r.done("ErrorResponse")
        f = d
    elif t == "A":
        f = (r.int32(), r.cstr(), r.cstr())
        r.done("NotificationResponse")
    elif t == "t":
        n = r.int16()
        f = tuple(r.uint32() for _ in range(n))
        r.done("ParameterDescription")
    elif t in "GHW":
        fmt = r.byte()
        n = r.int16()
        f = (fmt, tuple(r.int16() for _ in range(n)))
        r.done("CopyResponse")
    elif t == "d":
        f = r.rest()
    elif t == "v":
        minor = r.int32()
        n = r.int32()
        f = (minor, tuple(r.cstr() for _ in range(n)))
    elif t == "V":
        ln = r.int32()
        f = None if ln == -1 else r.bytes(ln)
    elif t in "123nsIc":
        f = None
        r.done(BACKEND_NAMES[t])
    else:
        raise ProtocolViolation(f"unknown backend message type {t!r}")
    return Msg(t, f, payload)


# --------------------------------------------------------------------------
# SCRAM-SHA-256 (RFC 5802 / 7677), client side
# --------------------------------------------------------------------------

class _Scram:
    def __init__(self, password: str):
        self.password = password.encode("utf-8")
        self.nonce = base64.b64encode(os.urandom(18)).decode()
        self.client_first_bare = f"n=,r={self.nonce}"

    def first(self) -> bytes:
        return ("n,," + self.client_first_bare).encode()

    def final(self, server_first: bytes) -> bytes:
        sf = server_first.decode()
        attrs = dict(kv.split("=", 1) for kv in sf.split(","))
        if not attrs["r"].startswith(self.nonce):
            raise ProtocolViolation("SCRAM: server nonce does not extend client nonce")
        salt = base64.b64decode(attrs["s"])
        iters = int(attrs["i"])
        self.salted = hashlib.pbkdf2_hmac("sha256", self.password, salt, iters)
        client_key = hmac.new(self.salted, b"Client Key", "sha256").digest()
        stored_key = hashlib.sha256(client_key).digest()
        without_proof = f"c=biws,r={attrs['r']}"
        self.auth_message = f"{self.client_first_bare},{sf},{without_proof}".encode()
        sig = hmac.new(stored_key, self.auth_message, "sha256").digest()
        proof = bytes(a ^ b for a, b in zip(client_key, sig))
        return f"{without_proof},p={base64.b64encode(proof).decode()}".encode()

    def verify(self, server_final: bytes) -> None:
        attrs = dict(kv.split("=", 1) for kv in server_final.decode().split(","))
        if "e" in attrs:
            raise ProtocolViolation(f"SCRAM server error: {attrs['e']}")
        server_key = hmac.new(self.salted, b"Server Key", "sha256").digest()
        expect = hmac.new(server_key, self.auth_message, "sha256").digest()
        if base64.b64decode(attrs["v"]) != expect:
            raise ProtocolViolation("SCRAM: bad server signature")


# --------------------------------------------------------------------------
# Connection
# --------------------------------------------------------------------------

class Conn:
    """One frontend connection. See the module docstring."""

    def __init__(self, sock: socket.socket, timeout: float = DEFAULT_TIMEOUT):
        self.sock = sock
        self.timeout = timeout
        self._rbuf = bytearray()
        self._wbuf = bytearray()
        self.closed = False
        self.pid: Optional[int] = None
        self.secret: Optional[int] = None
        self.parameters: dict[str, str] = {}
        self.startup_messages: list[Msg] = []
        self.status: Optional[str] = None
        self.host: Optional[str] = None
        self.port: Optional[int] = None

    # -- construction ------------------------------------------------------
    @staticmethod
    def open_socket(host: str, port: int, timeout: float = DEFAULT_TIMEOUT) -> socket.socket:
        s = socket.create_connection((host, port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    @classmethod
    def raw(cls, host: str, port: int, timeout: float = DEFAULT_TIMEOUT) -> "Conn":
        """A connected socket with no startup sent yet."""
        c = cls(cls.open_socket(host, port, timeout), timeout)
        c.host, c.port = host, port
        return c

    @classmethod
    def connect(
        cls,
        host: str,
        port: int,
        user: str = "postgres",
        database: str = "postgres",
        password: Optional[str] = None,
        params: Optional[dict[str, str]] = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> "Conn":
        """Open a connection and complete startup (raises ServerError on failure)."""
        c = cls.raw(host, port, timeout)
        try:
            msgs = c.startup(user=user, database=database, password=password, params=params)
        except BaseException:
            c.close()
            raise
        err = [m for m in msgs if m.type == "E"]
        if err:
            c.close()
            raise ServerError(err[0].fields)
        return c

    def startup(
        self,
        user: str = "postgres",
        database: str = "postgres",
        password: Optional[str] = None,
        params: Optional[dict[str, str]] = None,
    ) -> list[Msg]:
        """Send StartupMessage, run authentication, read to ReadyForQuery or ErrorResponse.

        Returns every message received after authentication (or the ErrorResponse).
        Authentication requests are answered, not returned (except a failure).
        """
        p = {"user": user, "database": database}
        if params:
            p.update(params)
        self.push(startup_packet(p))
        scram: Optional[_Scram] = None
        out: list[Msg] = []
        while True:
            m = self.recv()
            if m.type == "R":
                code, data = m.fields
                if code == 0:
                    continue
                if password is None:
                    raise PgWireError(f"server asked for authentication {AUTH_NAMES.get(code, code)}, no password given")
                if code == 3:
                    self.push(frame(b"p", _cstr(password)))
                elif code == 5:
                    salt = data[:4]
                    inner = hashlib.md5((password + user).encode()).hexdigest().encode()
                    self.push(frame(b"p", _cstr(b"md5" + hashlib.md5(inner + salt).hexdigest().encode())))
                elif code == 10:
                    mechs = [x.decode() for x in data.split(b"\x00") if x]
                    if "SCRAM-SHA-256" not in mechs:
                        raise PgWireError(f"no supported SASL mechanism in {mechs}")
                    scram = _Scram(password)
                    first = scram.first()
                    self.push(frame(b"p", _cstr("SCRAM-SHA-256") + struct.pack("!i", len(first)) + first))
                elif code == 11:
                    assert scram is not None
                    self.push(frame(b"p", scram.final(data)))
                elif code == 12:
                    assert scram is not None
                    scram.verify(data)
                else:
                    raise PgWireError(f"unsupported authentication request {code}")
                continue
            out.append(m)
            if m.type == "S":
                self.parameters[m.fields[0]] = m.fields[1]
            elif m.type == "K":
                self.pid, self.secret = m.fields
            elif m.type == "E":
                break
            elif m.type == "Z":
                self.status = m.fields
                break
        self.startup_messages = out
        return out

    # -- low-level I/O -----------------------------------------------------
    def send(self, data: bytes) -> None:
        """Buffer raw bytes and write everything buffered."""
        self._wbuf += data
        self.push()

    def push(self, data: bytes = b"") -> None:
        """Write the buffered frontend messages (plus `data`) to the socket."""
        self._wbuf += data
        if self._wbuf:
            buf = bytes(self._wbuf)
            self._wbuf.clear()
            self.sock.settimeout(self.timeout)
            self.sock.sendall(buf)

    def _fill(self, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Timeout("timed out waiting for a backend message")
        # A TLS socket may hold decrypted bytes that select() cannot see.
        pending = getattr(self.sock, "pending", None)
        r = pending is not None and pending() > 0
        if not r:
            r, _, _ = select.select([self.sock], [], [], remaining)
        if not r:
            raise Timeout("timed out waiting for a backend message")
        try:
            chunk = self.sock.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            self.closed = True
            raise ConnectionClosed("server closed the connection")
        self._rbuf += chunk

    def recv(self, timeout: Optional[float] = None) -> Msg:
        """Read and decode the next backend message."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while len(self._rbuf) < 5:
            self._fill(deadline)
        t = chr(self._rbuf[0])
        (ln,) = struct.unpack_from("!i", self._rbuf, 1)
        if ln < 4 or ln > 1 << 30:
            raise ProtocolViolation(f"bad message length {ln} for type {t!r}")
        while len(self._rbuf) < 1 + ln:
            self._fill(deadline)
        payload = bytes(self._rbuf[5 : 1 + ln])
        del self._rbuf[: 1 + ln]
        m = decode(t, payload)
        if t == "Z":
            self.status = m.fields
        return m

    def start_tls(self, context=None, server_hostname: Optional[str] = None) -> None:
        """TLS handshake on the socket (after the server answered an SSLRequest with 'S');
        later reads and writes are encrypted. Default: no certificate verification."""
        import ssl
        if context is None:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        self.sock.settimeout(self.timeout)
        self.sock = context.wrap_socket(self.sock, server_hostname=server_hostname)

    def recv_byte(self, timeout: Optional[float] = None) -> bytes:
        """Read a single raw byte (answer to SSLRequest / GSSENCRequest)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while len(self._rbuf) < 1:
            self._fill(deadline)
        b = bytes(self._rbuf[:1])
        del self._rbuf[:1]
        return b

    def has_buffered_input(self) -> bool:
        return bool(self._rbuf)

    def read_until(self, types: str, timeout: Optional[float] = None) -> list[Msg]:
        """Read messages up to and including the first whose type is in `types`."""
        out = []
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            m = self.recv(max(0.0, deadline - time.monotonic()))
            out.append(m)
            if m.type in types:
                return out

    def read_until_ready(self, timeout: Optional[float] = None) -> list[Msg]:
        """Read messages up to and including ReadyForQuery."""
        return self.read_until("Z", timeout)

    def read_until_closed(self, timeout: Optional[float] = None) -> list[Msg]:
        """Read messages until the server closes the connection (bounded)."""
        out = []
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            try:
                out.append(self.recv(max(0.0, deadline - time.monotonic())))
            except ConnectionClosed:
                return out

    def read_available(self, wait: float = 0.0) -> list[Msg]:
        """Messages that arrive within `wait` seconds (no error when none)."""
        out = []
        deadline = time.monotonic() + wait
        while True:
            try:
                out.append(self.recv(max(0.0, deadline - time.monotonic()) or 0.001))
            except Timeout:
                return out

    def close(self) -> None:
        if not self.closed:
            try:
                self.sock.settimeout(1.0)
                self.sock.sendall(frame(b"X", b""))
            except OSError:
                pass
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self) -> "Conn":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- frontend messages ---------------------------------------------------
    def query(self, sql: str | bytes, timeout: Optional[float] = None) -> list[Msg]:
        """Simple Query; returns messages through ReadyForQuery (COPY IN is not answered)."""
        self.push(frame(b"Q", _cstr(sql)))
        return self.read_until_ready(timeout)

    def send_query(self, sql: str | bytes) -> None:
        """Send a simple Query without reading the answer."""
        self.push(frame(b"Q", _cstr(sql)))

    def parse(self, name: str, sql: str | bytes, param_types: Sequence[int] = ()) -> "Conn":
        body = _cstr(name) + _cstr(sql) + struct.pack("!h", len(param_types))
        body += b"".join(struct.pack("!I", o) for o in param_types)
        self._wbuf += frame(b"P", body)
        return self

    def bind(
        self,
        portal: str = "",
        statement: str = "",
        params: Sequence[Any] = (),
        param_formats: Sequence[int] = (),
        result_formats: Sequence[int] = (),
    ) -> "Conn":
        body = _cstr(portal) + _cstr(statement)
        body += struct.pack("!h", len(param_formats)) + b"".join(struct.pack("!h", f) for f in param_formats)
        body += struct.pack("!h", len(params))
        for p in params:
            v = encode_param(p)
            body += struct.pack("!i", -1) if v is None else struct.pack("!i", len(v)) + v
        body += struct.pack("!h", len(result_formats)) + b"".join(struct.pack("!h", f) for f in result_formats)
        self._wbuf += frame(b"B", body)
        return self

    def describe(self, kind: str = "P", name: str = "") -> "Conn":
        self._wbuf += frame(b"D", kind.encode() + _cstr(name))
        return self

    def execute(self, portal: str = "", max_rows: int = 0) -> "Conn":
        self._wbuf += frame(b"E", _cstr(portal) + struct.pack("!i", max_rows))
        return self

    def close_(self, kind: str = "S", name: str = "") -> "Conn":
        """The Close message ('S' statement or 'P' portal). (`close()` closes the socket.)"""
        self._wbuf += frame(b"C", kind.encode() + _cstr(name))
        return self

    def sync(self, timeout: Optional[float] = None) -> list[Msg]:
        """Send Sync (with everything buffered); read through ReadyForQuery."""
        self._wbuf += frame(b"S", b"")
        self.push()
        return self.read_until_ready(timeout)

    def send_sync(self) -> None:
        self._wbuf += frame(b"S", b"")
        self.push()

    def flush(self) -> None:
        """Send Flush (with everything buffered). Read the answers with recv()/read_until()."""
        self._wbuf += frame(b"H", b"")
        self.push()

    def copy_data(self, data: bytes) -> "Conn":
        self._wbuf += frame(b"d", data)
        return self

    def copy_done(self) -> "Conn":
        self._wbuf += frame(b"c", b"")
        return self

    def copy_fail(self, message: str) -> "Conn":
        self._wbuf += frame(b"f", _cstr(message))
        return self

    def terminate(self) -> None:
        self.push(frame(b"X", b""))

    # -- helpers -----------------------------------------------------------
    def execute_extended(
        self,
        sql: str,
        params: Sequence[Any] = (),
        param_types: Sequence[int] = (),
        param_formats: Sequence[int] = (),
        result_formats: Sequence[int] = (),
        describe: bool = True,
    ) -> list[Msg]:
        """Unnamed Parse/Bind/[Describe P]/Execute/Sync; returns messages through ReadyForQuery."""
        self.parse("", sql, param_types)
        self.bind("", "", params, param_formats, result_formats)
        if describe:
            self.describe("P", "")
        self.execute("", 0)
        return self.sync()

    def simple(self, sql: str) -> list[tuple]:
        """Run a simple query expecting success; return rows as tuples of str|None."""
        msgs = self.query(sql)
        errs = [m for m in msgs if m.type == "E"]
        if errs:
            raise ServerError(errs[0].fields)
        return [tuple(None if v is None else v.decode() for v in m.fields) for m in msgs if m.type == "D"]


def cancel_request(host: str, port: int, pid: int, secret: int, timeout: float = DEFAULT_TIMEOUT) -> None:
    """Send a CancelRequest on a new connection (the server closes it without an answer)."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(struct.pack("!iiii", 16, CANCEL_REQUEST_CODE, pid, secret))
        s.settimeout(timeout)
        try:
            while s.recv(1024):
                pass
        except (socket.timeout, ConnectionResetError):
            pass


def rows(msgs: Iterable[Msg]) -> list[tuple]:
    """DataRow values of a message list, decoded as UTF-8 text."""
    return [tuple(None if v is None else v.decode() for v in m.fields) for m in msgs if m.type == "D"]


def errors(msgs: Iterable[Msg]) -> list[dict]:
    return [m.fields for m in msgs if m.type == "E"]


def types(msgs: Iterable[Msg]) -> str:
    """The message type letters of a list, e.g. '12TDCZ'."""
    return "".join(m.type for m in msgs)
