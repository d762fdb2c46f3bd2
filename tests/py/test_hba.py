"""Host rules (pg_hba.conf), authentication methods and the limits before authentication.

Rule matching is table-driven through real connections, and compared with a PostgreSQL 15
given the same rules file (the harness' cluster: its pg_hba.conf is rewritten and reloaded for
the comparison, and restored afterwards). Also: reload by SIGHUP and pg_reload_conf() (a bad
file keeps the rules in force), pg_hba_file_rules, authentication_timeout, the per-address
rate limit of password failures, oversized packets, and that no message reaches SQL before
authentication succeeds. `hostssl` / `hostnossl` over real TLS connections (psql with
sslmode=require and disable), compared with PostgreSQL 15 (the harness' cluster runs with
ssl = on), and pg_hba_file_rules' hostssl warning when ssl is off on both.
"""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

import pgwire
import servers

HOST = servers.HOST
PW = servers.SCRAM_PASSWORD
SU = servers.PG_SCRAM_USER


# ---------------------------------------------------------------------------------------------
# servers
# ---------------------------------------------------------------------------------------------

class Tg:
    """A threadgres started with its own flags (host rules file, listen addresses, ...)."""

    def __init__(self, workdir: Path, args: list[str], name: str):
        self.port = servers.free_port()
        self.log = workdir / f"{name}.log"
        argv = [servers.threadgres_binary(), "--port", str(self.port), "--log-level", "info", *args]
        if "--data-dir" not in args:
            # its own data directory: TLS is on, and its self-signed certificate lives there
            # (a new one per server: the directory keeps roles and tables across restarts)
            argv += ["--data-dir", tempfile.mkdtemp(prefix=f"{name}-data-", dir=workdir)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("THREADGRES_")}
        with open(self.log, "ab") as logf:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=logf,
                                         stderr=subprocess.STDOUT, env=env, start_new_session=True)
        deadline = time.monotonic() + servers.START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise servers.ServerStartError(f"threadgres exited {self.proc.returncode}:\n{self.log_text()}")
            try:
                socket.create_connection((HOST, self.port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture(scope="module")
def workdir(tmp_root):
    d = tmp_root / "hba"
    d.mkdir(exist_ok=True)
    return d


@pytest.fixture
def start_tg(workdir):
    started: list[Tg] = []

    def start(args: list[str], name: str = "tg") -> Tg:
        t = Tg(workdir, args, f"{name}-{len(started)}")
        started.append(t)
        return t
    yield start
    for t in started:
        t.stop()


@pytest.fixture
def pg_hba(pg_cluster, pg):
    """Writes the harness cluster's pg_hba.conf and reloads it; restores it afterwards."""
    if not isinstance(pg_cluster, servers.Pg15Cluster):
        pytest.skip("PG15_ADDR given: its pg_hba.conf cannot be changed")
    path = pg_cluster.datadir / "pg_hba.conf"
    original = path.read_text()

    def write(text: str, reload: bool = True) -> None:
        path.write_text(text)
        if reload:
            os.kill(pg_cluster.proc.pid, signal.SIGHUP)
            time.sleep(0.5)  # PostgreSQL reloads asynchronously

    yield write
    path.write_text(original)
    os.kill(pg_cluster.proc.pid, signal.SIGHUP)
    time.sleep(0.5)


def attempt(host: str, port: int, user: str, database: str, password: str | None = None,
            extra: bytes | None = None) -> tuple:
    """One connection attempt: the authentication requests seen, and the outcome (the FATAL's
    SQLSTATE and text, or the current user)."""
    asked = []
    with pgwire.Conn.raw(host, port) as c:
        c.push(pgwire.startup_packet({"user": user, "database": database}))
        scram = None
        while True:
            try:
                m = c.recv()
            except pgwire.ConnectionClosed:
                return (tuple(asked), "closed")
            if m.type == "R":
                code, data = m.fields
                if code == 0:
                    continue
                asked.append(pgwire.AUTH_NAMES.get(code, code))
                if password is None:
                    return (tuple(asked), "no password")
                if code == 3:
                    c.push(pgwire.frame(b"p", password.encode() + b"\0"))
                elif code == 10:
                    scram = pgwire._Scram(password)
                    first = scram.first()
                    c.push(pgwire.frame(b"p", b"SCRAM-SHA-256\0" + struct.pack("!i", len(first)) + first))
                elif code == 11:
                    c.push(pgwire.frame(b"p", scram.final(data)))
                elif code == 12:
                    scram.verify(data)
                continue
            if m.type == "E":
                return (tuple(asked), (m.fields.get("S"), m.fields.get("C"), m.fields.get("M")))
            if m.type == "Z":
                rows = c.simple("SELECT current_user::text")
                return (tuple(asked), ("ok", rows[0][0]))


def create_roles(port: int, *names: str, password: str | None = None, user: str = "postgres") -> None:
    """Creates login roles on a threadgres (connecting as `user`, which a trust rule admits)."""
    with pgwire.Conn.connect(HOST, port, user=user, password=password) as c:
        for n in names:
            c.simple(f"CREATE ROLE {n} LOGIN SUPERUSER PASSWORD '{PW}'")


# ---------------------------------------------------------------------------------------------
# matching, compared with PostgreSQL 15
# ---------------------------------------------------------------------------------------------

RULES = """\
# threadgres test rules
local   all             all                             trust
host    all             rejected        127.0.0.1/32    reject
host    template1       all             127.0.0.1/32    reject
host    sameuser        all             127.0.0.1/32    trust
host    "all"           all             127.0.0.1/32    trust
host    all             +scram_user     127.0.0.1/32    scram-sha-256
host    postgres,nosuchdb postgres      127.0.0.1       255.255.255.255   trust
host    all             all             10.0.0.0/8      trust
hostssl all             all             all             trust
"""

# (user, database, password)
CASES = [
    ("postgres", "postgres", None),
    ("rejected", "postgres", None),
    ("postgres", "template1", None),
    ("postgres", "nosuchdb", None),
    (SU, "postgres", PW),
    (SU, "postgres", "wrong"),
    (SU, SU, None),
    ("postgres", "all", None),
    ("nobody", "postgres", None),
    ("x", "other", None),
    ("postgres", "template0", None),
]


def outcomes(port: int) -> list:
    return [(u, d, attempt(HOST, port, u, d, p)) for u, d, p in CASES]


def test_rules_match_as_in_postgres(workdir, start_tg, pg_hba, pg_cluster):
    f = workdir / "match.conf"
    f.write_text(RULES)
    tg = start_tg(["--listen", HOST, "--hba-file", str(f), "--password", PW])
    create_roles(tg.port, SU)
    pg_hba(RULES)
    ref = outcomes(pg_cluster.port)
    got = outcomes(tg.port)
    assert got == ref
    # and the cases say what they should
    by = {(u, d, p): o for (u, d, p), (_, _, o) in zip(CASES, ref)}
    assert by[("postgres", "postgres", None)] == ((), ("ok", "postgres"))
    assert by[("rejected", "postgres", None)][1] == (
        "FATAL", "28000",
        'pg_hba.conf rejects connection for host "127.0.0.1", user "rejected", database "postgres", no encryption')
    assert by[("x", "other", None)][1] == (
        "FATAL", "28000",
        'no pg_hba.conf entry for host "127.0.0.1", user "x", database "other", no encryption')
    assert by[(SU, "postgres", PW)][0][0] == "SASL" and by[(SU, "postgres", PW)][1] == ("ok", SU)
    assert by[(SU, "postgres", "wrong")][1][1] == "28P01"


MEMBER_RULES = """\
host all +hba_grp 127.0.0.1/32 reject
host samerole all 127.0.0.1/32 reject
host all all 127.0.0.1/32 trust
"""

MEMBER_ROLES = ["CREATE ROLE hba_grp", "CREATE ROLE hba_member LOGIN", "CREATE ROLE hba_other LOGIN",
                "GRANT hba_grp TO hba_member", "CREATE ROLE hba_mid", "GRANT hba_mid TO hba_other",
                "GRANT hba_grp TO hba_mid"]


def test_role_membership_as_in_postgres(workdir, start_tg, pg_hba, pg_cluster):
    """`+role` and `samerole` follow memberships, direct or not (a role is a member of itself)."""
    f = workdir / "members.conf"
    f.write_text(MEMBER_RULES)
    tg = start_tg(["--listen", HOST, "--hba-file", str(f)])
    # template1: no role of that name, so `samerole` lets postgres in there
    with pgwire.Conn.connect(HOST, pg_cluster.port) as pgc, \
            pgwire.Conn.connect(HOST, tg.port, database="template1") as tgc:
        for stmt in MEMBER_ROLES:
            pgc.simple(stmt)
            tgc.simple(stmt)
    try:
        pg_hba(MEMBER_RULES)
        cases = [("hba_member", "postgres"), ("hba_other", "postgres"), ("postgres", "postgres"),
                 ("postgres", "hba_grp"), ("hba_grp", "postgres")]

        def observe(port):
            return [attempt(HOST, port, u, d) for u, d in cases]
        ref = observe(pg_cluster.port)
        assert observe(tg.port) == ref
        # members of hba_grp, directly or through hba_mid; postgres to its own database by
        # samerole (a role is a member of itself)
        # (postgres is no member of hba_grp: trust, then no such database)
        assert [o[1][1] for o in ref] == ["28000", "28000", "28000", "3D000", "28000"], ref
    finally:
        with pgwire.Conn.connect(HOST, pg_cluster.port, database="template1") as pgc:
            pgc.simple("DROP ROLE IF EXISTS hba_member, hba_other, hba_mid, hba_grp")


METHOD_RULES = """\
host all postgres 127.0.0.1/32 trust
host all all 127.0.0.1/32 {method}
"""


@pytest.mark.parametrize("method", ["password", "md5", "scram-sha-256"])
def test_password_methods_as_in_postgres(workdir, start_tg, pg_hba, pg_cluster, method):
    """The stored password is a SCRAM secret: `password` checks the cleartext against it,
    md5 falls back to SCRAM, as in PostgreSQL 15."""
    text = METHOD_RULES.format(method=method)
    f = workdir / f"{method}.conf"
    f.write_text(text)
    tg = start_tg(["--listen", HOST, "--hba-file", str(f), "--password", PW])
    create_roles(tg.port, SU)
    pg_hba(text)

    def observe(port):
        return [attempt(HOST, port, SU, "postgres", p) for p in (PW, "wrong", None)]
    ref = observe(pg_cluster.port)
    assert observe(tg.port) == ref
    asked = "CleartextPassword" if method == "password" else "SASL"
    assert ref[0][0][0] == asked and ref[0][1] == ("ok", SU)
    assert ref[1][1] == ("FATAL", "28P01", f'password authentication failed for user "{SU}"')


def test_pg_hba_file_rules_as_in_postgres(workdir, start_tg, pg_hba, pg_cluster):
    """The view reads the file as it is on disk, errors included, with PostgreSQL's columns."""
    lines = (Path(__file__).parent / "hba_file_rules.conf").read_text()
    f = workdir / "view.conf"
    f.write_text("host all all 127.0.0.1/32 trust\n")
    tg = start_tg(["--listen", HOST, "--hba-file", str(f)])
    f.write_text(lines)
    pg_hba(lines, reload=False)
    q = "SELECT line_number, type, database, user_name, address, netmask, auth_method, options, error " \
        "FROM pg_hba_file_rules ORDER BY line_number"
    with pgwire.Conn.connect(HOST, pg_cluster.port) as c:
        ref = c.simple(q)
    with pgwire.Conn.connect(HOST, tg.port) as c:
        got = c.simple(q)
        # the file in force is still the first one
        assert c.simple("SHOW hba_file") == [(str(f),)]
    assert got == ref
    assert len(ref) > 40


# ---------------------------------------------------------------------------------------------
# hostssl / hostnossl over real TLS, compared with PostgreSQL 15
# ---------------------------------------------------------------------------------------------

SSL_RULES = """\
hostssl   all  hba_tls       127.0.0.1/32  trust
hostnossl all  hba_plain     127.0.0.1/32  trust
hostssl   all  hba_rejected  127.0.0.1/32  reject
hostnossl all  postgres      127.0.0.1/32  trust
"""
SSL_ROLES = ["hba_tls", "hba_plain", "hba_rejected"]
SSL_ROW = "SELECT current_user, ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"


def _psql_outcome(port: int, user: str, sslmode: str) -> tuple:
    """psql's result for one connection: the row, or the server's FATAL (without psql's prefix,
    which names the port)."""
    conninfo = f"host={HOST} port={port} user={user} dbname=postgres sslmode={sslmode}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    r = subprocess.run(["psql", "-X", "-w", "-At", conninfo, "-c", SSL_ROW], env=env,
                       capture_output=True, text=True, timeout=60)
    if r.returncode == 0:
        return ("ok", r.stdout.strip())
    i = r.stderr.find("FATAL:")
    return ("error", " ".join(r.stderr[i:].split()) if i >= 0 else r.stderr.strip())


def test_hostssl_and_hostnossl_over_tls_as_in_postgres(workdir, start_tg, pg_hba, pg_cluster):
    """hostssl lines match TLS connections only, hostnossl lines plain ones only; the refusals
    say which (`SSL encryption` / `no encryption`)."""
    f = workdir / "ssl.conf"
    f.write_text(SSL_RULES)
    tg = start_tg(["--listen", HOST, "--hba-file", str(f)])
    with pgwire.Conn.connect(HOST, pg_cluster.port) as pgc, pgwire.Conn.connect(HOST, tg.port) as tgc:
        for r in SSL_ROLES:
            pgc.simple(f"CREATE ROLE {r} LOGIN")
            tgc.simple(f"CREATE ROLE {r} LOGIN")
    try:
        pg_hba(SSL_RULES)
        cases = [(u, m) for u in [*SSL_ROLES, "postgres"] for m in ("require", "disable")]

        def observe(port):
            return [_psql_outcome(port, u, m) for u, m in cases]
        ref = observe(pg_cluster.port)
        assert observe(tg.port) == ref
        by = dict(zip(cases, ref))
        entry = 'FATAL: no pg_hba.conf entry for host "127.0.0.1", user "{}", database "postgres", {}'
        assert by[("hba_tls", "require")] == ("ok", "hba_tls|t")
        assert by[("hba_tls", "disable")] == ("error", entry.format("hba_tls", "no encryption"))
        assert by[("hba_plain", "require")] == ("error", entry.format("hba_plain", "SSL encryption"))
        assert by[("hba_plain", "disable")] == ("ok", "hba_plain|f")
        assert by[("hba_rejected", "require")] == (
            "error", 'FATAL: pg_hba.conf rejects connection for host "127.0.0.1", user "hba_rejected", '
                     'database "postgres", SSL encryption')
    finally:
        # postgres still gets in over a plain connection (the hostnossl line)
        with pgwire.Conn.connect(HOST, pg_cluster.port) as pgc:
            pgc.simple("DROP ROLE IF EXISTS " + ", ".join(SSL_ROLES))


SSL_OFF_RULES = """\
hostssl   all all 127.0.0.1/32 trust
hostnossl all all 127.0.0.1/32 trust
host      all all all          reject
"""


def test_hostssl_lines_when_ssl_is_off_as_in_postgres(workdir, start_tg, pg_hba, pg_cluster):
    """With ssl off, hostssl lines load with PostgreSQL's warning (pg_hba_file_rules' error
    column) and never match; a TLS client is refused, a plain one matches hostnossl."""
    f = workdir / "ssl-off.conf"
    f.write_text(SSL_OFF_RULES)
    tg = start_tg(["--listen", HOST, "--hba-file", str(f), "--ssl", "off"])
    q = "SELECT line_number, type, auth_method, error FROM pg_hba_file_rules ORDER BY line_number"
    with pgwire.Conn.connect(HOST, pg_cluster.port) as c:
        c.simple("ALTER SYSTEM SET ssl = off")
        c.simple("SELECT pg_reload_conf()")
    try:
        time.sleep(0.5)  # PostgreSQL reloads asynchronously
        pg_hba(SSL_OFF_RULES, reload=False)
        with pgwire.Conn.connect(HOST, pg_cluster.port) as c:
            assert c.simple("SHOW ssl") == [("off",)]
            ref = c.simple(q)
    finally:
        with pgwire.Conn.connect(HOST, pg_cluster.port) as c:
            c.simple("ALTER SYSTEM RESET ssl")
            c.simple("SELECT pg_reload_conf()")
        time.sleep(0.5)
    with pgwire.Conn.connect(HOST, tg.port) as c:
        assert c.simple("SHOW ssl") == [("off",)]
        got = c.simple(q)
    assert got == ref
    assert ref[0] == ("1", "hostssl", "trust", "hostssl record cannot match because SSL is disabled")
    assert ref[1][3] is None
    assert "hostssl record cannot match because SSL is disabled" in tg.log_text()
    assert _psql_outcome(tg.port, "postgres", "disable") == ("ok", "postgres|f")
    assert _psql_outcome(tg.port, "postgres", "require")[0] == "error"


CERT_RULES = """\
hostssl   all  hba_ca     127.0.0.1/32  trust          clientcert=verify-ca
hostssl   all  hba_full   127.0.0.1/32  trust          clientcert=verify-full
hostssl   all  hba_pw     127.0.0.1/32  scram-sha-256  clientcert=verify-full
hostssl   all  hba_reject 127.0.0.1/32  reject         clientcert=verify-ca
hostssl   all  hba_dn     127.0.0.1/32  trust          clientcert=verify-full clientname=DN
hostnossl all  postgres   127.0.0.1/32  trust
"""
CERT_ROLES = ["hba_ca", "hba_full", "hba_pw", "hba_reject", "hba_dn"]


@pytest.fixture(scope="module")
def client_certs(workdir) -> Path:
    """A CA (ca.crt) and client certificates it signed: CN=hba_full, CN=hba_pw, CN=someone."""
    d = workdir / "certs"
    d.mkdir(exist_ok=True)

    def openssl(*args):
        r = subprocess.run(["openssl", *args], cwd=d, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-subj", "/CN=hba test CA", "-days", "30", "-keyout", "ca.key", "-out", "ca.crt")
    # X.509 v3 (rustls refuses v1 client certificates)
    (d / "client.ext").write_text("basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
    for cn in ("hba_full", "hba_pw", "someone"):
        openssl("req", *ec, "-subj", f"/CN={cn}/O=Example", "-keyout", f"{cn}.key", "-out", f"{cn}.csr")
        openssl("x509", "-req", "-in", f"{cn}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "30", "-extfile", "client.ext", "-out", f"{cn}.crt")
        os.chmod(d / f"{cn}.key", 0o600)
    return d


def _psql_cert_outcome(port: int, user: str, certs: Path, cert: str | None, password: str | None = None):
    conninfo = f"host={HOST} port={port} user={user} dbname=postgres sslmode=require"
    if cert:
        conninfo += f" sslcert={certs / (cert + '.crt')} sslkey={certs / (cert + '.key')}"
    else:
        conninfo += f" sslcert={certs / 'none.crt'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    if password:
        env["PGPASSWORD"] = password
    r = subprocess.run(["psql", "-X", "-w", "-At", conninfo, "-c", SSL_ROW], env=env,
                       capture_output=True, text=True, timeout=60)
    if r.returncode == 0:
        return ("ok", r.stdout.strip())
    i = r.stderr.find("FATAL:")
    return ("error", " ".join(r.stderr[i:].split()) if i >= 0 else r.stderr.strip())


CERT_CASES = [("hba_ca", None, None), ("hba_ca", "someone", None), ("hba_full", "hba_full", None),
              ("hba_full", "someone", None), ("hba_full", None, None), ("hba_pw", "hba_pw", PW),
              ("hba_pw", "someone", PW), ("hba_pw", "hba_pw", "wrong"), ("hba_reject", "someone", None),
              ("hba_reject", None, None), ("hba_dn", "someone", None)]


def test_clientcert_as_in_postgres(workdir, start_tg, pg_hba, pg_cluster, client_certs):
    """`clientcert=verify-ca` needs a certificate the server's CA verifies, `verify-full` also
    its CN to be the user name; without ssl_ca_file such lines refuse every client."""
    f = workdir / "certs.conf"
    f.write_text(CERT_RULES)
    no_ca = start_tg(["--listen", HOST, "--hba-file", str(f)], name="no-ca")
    with_ca = start_tg(["--listen", HOST, "--hba-file", str(f), "--ssl-ca-file", str(client_certs / "ca.crt")],
                       name="with-ca")
    roles = [f"CREATE ROLE {r} LOGIN PASSWORD '{PW}'" for r in CERT_ROLES]
    for port in (pg_cluster.port, no_ca.port, with_ca.port):
        with pgwire.Conn.connect(HOST, port) as c:
            for stmt in roles:
                c.simple(stmt)

    def observe(port):
        return [_psql_cert_outcome(port, u, client_certs, cert, pw) for u, cert, pw in CERT_CASES]
    try:
        pg_hba(CERT_RULES)
        ref = observe(pg_cluster.port)
        assert observe(no_ca.port) == ref
        assert ref[0] == ("error", "FATAL: client certificates can only be checked if a root certificate "
                                   "store is available")
        with pgwire.Conn.connect(HOST, pg_cluster.port) as c:
            c.simple(f"ALTER SYSTEM SET ssl_ca_file = '{client_certs / 'ca.crt'}'")
            c.simple("SELECT pg_reload_conf()")
        time.sleep(0.5)
        ref = observe(pg_cluster.port)
        assert observe(with_ca.port) == ref
        by = {(u, cert, pw): o for (u, cert, pw), o in zip(CERT_CASES, ref)}
        assert by[("hba_ca", None, None)] == ("error", "FATAL: connection requires a valid client certificate")
        assert by[("hba_ca", "someone", None)] == ("ok", "hba_ca|t")
        assert by[("hba_full", "hba_full", None)] == ("ok", "hba_full|t")
        assert by[("hba_full", "someone", None)] == (
            "error", 'FATAL: "trust" authentication failed for user "hba_full"')
        assert by[("hba_pw", "hba_pw", PW)] == ("ok", "hba_pw|t")
        assert by[("hba_pw", "someone", PW)] == (
            "error", 'FATAL: password authentication failed for user "hba_pw"')
    finally:
        with pgwire.Conn.connect(HOST, pg_cluster.port) as c:
            c.simple("ALTER SYSTEM RESET ssl_ca_file")
            c.simple("SELECT pg_reload_conf()")
            c.simple("DROP ROLE IF EXISTS " + ", ".join(CERT_ROLES))
        time.sleep(0.5)


def test_default_rules_and_settings(start_tg):
    tg = start_tg(["--listen", HOST])
    with pgwire.Conn.connect(HOST, tg.port) as c:
        assert c.simple("SHOW hba_file") == [("",)]
        assert c.simple("SHOW authentication_timeout") == [("1min",)]
        rows = c.simple("SELECT line_number, type, address, netmask, auth_method FROM pg_hba_file_rules")
        assert rows == [("1", "host", "127.0.0.1", "255.255.255.255", "trust"),
                        ("2", "host", "::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "trust")]
        err = c.query("SET authentication_timeout = '5s'")
        assert [(m.sqlstate, m.message) for m in err if m.type == "E"] == [
            ("55P02", 'parameter "authentication_timeout" cannot be changed now')]


def test_bad_file_refuses_to_start(workdir):
    f = workdir / "bad.conf"
    f.write_text("host all all 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 bogus\n")
    r = subprocess.run([servers.threadgres_binary(), "--port", str(servers.free_port()), "--hba-file", str(f)],
                       capture_output=True, timeout=60)
    assert r.returncode != 0
    assert (f'invalid authentication method "bogus" (line 2 of configuration file "{f}"); '
            "could not load pg_hba.conf") in r.stderr.decode()
    f.write_text("# nothing\n")
    r = subprocess.run([servers.threadgres_binary(), "--port", str(servers.free_port()), "--hba-file", str(f)],
                       capture_output=True, timeout=60)
    assert r.returncode != 0
    assert f'configuration file "{f}" contains no entries' in r.stderr.decode()


def test_reload_by_sighup_and_pg_reload_conf(workdir, start_tg):
    f = workdir / "reload.conf"
    f.write_text("host all all 127.0.0.1/32 trust\n")
    tg = start_tg(["--listen", HOST, "--hba-file", str(f)])
    create_roles(tg.port, "alice", "bob", "carol")
    assert attempt(HOST, tg.port, "alice", "postgres")[1] == ("ok", "alice")
    # SIGHUP
    f.write_text("host all alice 127.0.0.1/32 reject\nhost all all 127.0.0.1/32 trust\n")
    tg.proc.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 10
    while attempt(HOST, tg.port, "alice", "postgres")[1][0] != "FATAL":
        assert time.monotonic() < deadline, tg.log_text()
        time.sleep(0.05)
    assert attempt(HOST, tg.port, "bob", "postgres")[1] == ("ok", "bob")
    # pg_reload_conf(): in force when it returns
    f.write_text("host all bob 127.0.0.1/32 reject\nhost all all 127.0.0.1/32 trust\n")
    with pgwire.Conn.connect(HOST, tg.port, user="carol") as c:
        assert c.simple("SELECT pg_reload_conf()") == [("t",)]
    assert attempt(HOST, tg.port, "bob", "postgres")[1][1] == "28000"
    assert attempt(HOST, tg.port, "alice", "postgres")[1] == ("ok", "alice")
    # a bad file is logged and the rules in force stay
    f.write_text("host all all 127.0.0.1/32 trust\nhost all all 1.2.3.4/33 trust\n")
    with pgwire.Conn.connect(HOST, tg.port, user="alice") as c:
        assert c.simple("SELECT pg_reload_conf()") == [("t",)]
        rows = c.simple("SELECT line_number, error FROM pg_hba_file_rules WHERE error IS NOT NULL")
        assert rows == [("2", 'invalid CIDR mask in address "1.2.3.4/33"')]
    assert attempt(HOST, tg.port, "bob", "postgres")[1][1] == "28000"
    log = tg.log_text()
    assert 'invalid CIDR mask in address "1.2.3.4/33" (line 2 of configuration file' in log
    assert "pg_hba.conf was not reloaded" in log


def _has_ipv6_loopback() -> bool:
    try:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.bind(("::1", 0))
        s.close()
        return True
    except OSError:
        return False


def test_ipv6_rules(workdir, start_tg):
    if not _has_ipv6_loopback():
        pytest.skip("no ::1 on this machine")
    f = workdir / "v6.conf"
    f.write_text("host all all 127.0.0.1/32 reject\nhost all all ::1/128 trust\n")
    tg = start_tg(["--listen", "127.0.0.1,::1", "--hba-file", str(f)])
    assert attempt("::1", tg.port, "postgres", "postgres")[1] == ("ok", "postgres")
    assert attempt(HOST, tg.port, "postgres", "postgres")[1][1] == "28000"
    f.write_text("host all all ::/0 reject\nhost all all 0.0.0.0/0 trust\n")
    tg.proc.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 10
    while attempt("::1", tg.port, "postgres", "postgres")[1][0] != "FATAL":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert attempt("::1", tg.port, "postgres", "postgres")[1] == (
        "FATAL", "28000", 'pg_hba.conf rejects connection for host "::1", user "postgres", database "postgres", no encryption')
    assert attempt(HOST, tg.port, "postgres", "postgres")[1] == ("ok", "postgres")


# ---------------------------------------------------------------------------------------------
# abuse: rate limit, authentication_timeout, oversized packets
# ---------------------------------------------------------------------------------------------

def test_password_failures_delay_that_address_only(start_tg):
    v6 = _has_ipv6_loopback()
    tg = start_tg(["--listen", "127.0.0.1,::1" if v6 else HOST, "--password", PW])
    for _ in range(5):
        t0 = time.monotonic()
        assert attempt(HOST, tg.port, "postgres", "postgres", "wrong")[1][1] == "28P01"
        assert time.monotonic() - t0 < 1.0
    t0 = time.monotonic()
    assert attempt(HOST, tg.port, "postgres", "postgres", "wrong")[1][1] == "28P01"
    assert time.monotonic() - t0 >= 0.8, "the sixth failure in a row is delayed"
    if v6:
        t0 = time.monotonic()
        assert attempt("::1", tg.port, "postgres", "postgres", PW)[1] == ("ok", "postgres")
        assert time.monotonic() - t0 < 0.8, "another address is not delayed"
    # the right password still works from the limited address, only later
    t0 = time.monotonic()
    assert attempt(HOST, tg.port, "postgres", "postgres", PW)[1] == ("ok", "postgres")
    assert time.monotonic() - t0 >= 0.8
    assert "attempt delayed" in tg.log_text()


def _closed_without_message(c: pgwire.Conn, within: float) -> tuple[bool, float]:
    t0 = time.monotonic()
    c.sock.settimeout(within)
    data = b""
    try:
        while True:
            chunk = c.sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except socket.timeout:
        return False, time.monotonic() - t0
    return data == b"", time.monotonic() - t0


def test_authentication_timeout(start_tg):
    tg = start_tg(["--listen", HOST, "--password", PW, "--authentication-timeout", "1"])
    # nothing sent at all
    c = pgwire.Conn.raw(HOST, tg.port)
    ok, took = _closed_without_message(c, 10)
    c.close()
    assert ok and 0.8 <= took < 5, took
    # half a start-up packet
    c = pgwire.Conn.raw(HOST, tg.port)
    c.send(pgwire.startup_packet({"user": "u"})[:10])
    ok, took = _closed_without_message(c, 10)
    c.close()
    assert ok and took < 5
    # answered 'S' to its SSLRequest, then no TLS handshake
    ssl_request = struct.pack("!ii", 8, pgwire.SSL_REQUEST_CODE)
    c = pgwire.Conn.raw(HOST, tg.port)
    c.send(ssl_request)
    assert c.recv_byte() == b"S"
    ok, took = _closed_without_message(c, 10)
    c.close()
    assert ok and took < 5
    # TLS set up, then no start-up packet: the timeout counts from the connection
    c = pgwire.Conn.raw(HOST, tg.port)
    t0 = time.monotonic()
    c.send(ssl_request)
    assert c.recv_byte() == b"S"
    c.start_tls()
    ok, took = _closed_without_message(c, 10)
    c.close()
    assert ok and time.monotonic() - t0 < 5
    # stalled in the middle of SCRAM
    c = pgwire.Conn.raw(HOST, tg.port)
    c.send(pgwire.startup_packet({"user": "u", "database": "postgres"}))
    m = c.recv()
    assert m.type == "R" and m.fields[0] == 10
    ok, took = _closed_without_message(c, 10)
    c.close()
    assert ok and took < 5
    # the server goes on
    assert attempt(HOST, tg.port, "postgres", "postgres", PW)[1] == ("ok", "postgres")
    with pgwire.Conn.connect(HOST, tg.port, password=PW) as c:
        assert c.simple("SHOW authentication_timeout") == [("1s",)]
    assert "canceling authentication due to timeout" in tg.log_text()


def test_oversized_startup_packet_is_refused_from_its_length(start_tg):
    tg = start_tg(["--listen", HOST])
    c = pgwire.Conn.raw(HOST, tg.port)
    c.send(struct.pack("!i", 10_001))  # only the length word: the body never comes
    msgs = c.read_until_closed(5)
    c.close()
    assert [(m.type, m.sqlstate, m.message) for m in msgs] == [("E", "08P01", "invalid length of startup packet")]


def test_oversized_password_message_is_refused_from_its_header(start_tg):
    tg = start_tg(["--listen", HOST, "--password", PW])
    c = pgwire.Conn.raw(HOST, tg.port)
    c.send(pgwire.startup_packet({"user": "u", "database": "postgres"}))
    assert c.recv().type == "R"
    c.send(b"p" + struct.pack("!i", 70_000))  # header only, over PostgreSQL's 65535
    msgs = c.read_until_closed(5)
    c.close()
    assert [(m.type, m.sqlstate, m.message) for m in msgs] == [("E", "08P01", "invalid message length")]


# ---------------------------------------------------------------------------------------------
# nothing reaches SQL before authentication succeeds
# ---------------------------------------------------------------------------------------------

def _q(sql: str) -> bytes:
    return pgwire.frame(b"Q", sql.encode() + b"\0")


INSTEAD_OF_PASSWORD = {
    "query_create": _q("CREATE TABLE pwned (a int)"),
    "query_notify": _q("NOTIFY pwned_channel"),
    "extended": (pgwire.frame(b"P", b"\0CREATE TABLE pwned2 (a int)\0\0\0")
                 + pgwire.frame(b"B", b"\0\0\0\0\0\0\0\0") + pgwire.frame(b"E", b"\0\0\0\0\0")
                 + pgwire.frame(b"S", b"")),
    "bind": pgwire.frame(b"B", b"\0\0\0\0\0\0\0\0"),
    "execute": pgwire.frame(b"E", b"\0\0\0\0\0"),
    "copy_data": pgwire.frame(b"d", b"1\n"),
    "copy_done": pgwire.frame(b"c", b""),
    "function_call": pgwire.frame(b"F", b"\0\0\0\0\0\0\0\0\0\0"),
    "sync": pgwire.frame(b"S", b""),
    "terminate": pgwire.frame(b"X", b""),
    "garbage_type": pgwire.frame(b"Y", b"garbage"),
}


def _instead(host: str, port: int, user: str, data: bytes, after_first: bool) -> list:
    with pgwire.Conn.raw(host, port) as c:
        c.send(pgwire.startup_packet({"user": user, "database": "postgres"}))
        m = c.recv()
        assert m.type == "R" and m.fields[0] in (3, 10), m
        if after_first:
            scram = pgwire._Scram("wrong")
            first = scram.first()
            c.send(pgwire.frame(b"p", b"SCRAM-SHA-256\0" + struct.pack("!i", len(first)) + first))
            m = c.recv()
            assert m.type == "R" and m.fields[0] == 11, m
        c.send(data)
        msgs = c.read_until_closed(5)
    return [(m.type, m.fields.get("S"), m.sqlstate, m.message) if m.type == "E" else (m.type,) for m in msgs]


@pytest.mark.parametrize("name", list(INSTEAD_OF_PASSWORD))
def test_no_sql_before_authentication(workdir, start_tg, pg_cluster, pg, name):
    data = INSTEAD_OF_PASSWORD[name]
    tg = start_tg(["--listen", HOST, "--password", PW])
    if isinstance(pg_cluster, servers.Pg15Cluster):
        for after_first in (False, True):
            ref = _instead(HOST, pg_cluster.port, SU, data, after_first)
            got = _instead(HOST, tg.port, SU, data, after_first)
            assert got == ref, (after_first, ref, got)
    for after_first in (False, True):
        got = _instead(HOST, tg.port, "postgres", data, after_first)
        assert len(got) == 1 and got[0][:3] == ("E", "FATAL", "08P01"), got
    # no side effect: nothing was created, nothing was notified
    with pgwire.Conn.connect(HOST, tg.port, password=PW) as c:
        assert c.simple("SELECT count(*) FROM pg_class WHERE relname LIKE 'pwned%'") == [("0",)]
        assert c.simple("SELECT pg_notification_queue_usage() = 0") == [("t",)]


CLEARTEXT_PACKETS = {
    "empty": pgwire.frame(b"p", b"\0"),
    "two_strings": pgwire.frame(b"p", b"abc\0def\0"),
    "unterminated": pgwire.frame(b"p", b"abc"),
    "query": _q("SELECT 1"),
}


def test_cleartext_password_packets_as_in_postgres(workdir, start_tg, pg_hba, pg_cluster):
    text = "host all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 password\n"
    f = workdir / "packets.conf"
    f.write_text(text)
    tg = start_tg(["--listen", HOST, "--hba-file", str(f), "--password", PW])
    pg_hba(text)
    for name, data in CLEARTEXT_PACKETS.items():
        ref = _instead(HOST, pg_cluster.port, SU, data, False)
        assert _instead(HOST, tg.port, SU, data, False) == ref, name
        assert len(ref) == 1 and ref[0][1] == "FATAL", (name, ref)


def test_no_sql_before_cleartext_password(workdir, start_tg):
    f = workdir / "cleartext.conf"
    f.write_text("host all all 127.0.0.1/32 password\n")
    tg = start_tg(["--listen", HOST, "--hba-file", str(f), "--password", PW])
    got = _instead(HOST, tg.port, "u", _q("CREATE TABLE pwned (a int)"), False)
    assert got == [("E", "FATAL", "08P01", "expected password response, got message type 81")]
    with pgwire.Conn.connect(HOST, tg.port, password=PW) as c:
        assert c.simple("SELECT count(*) FROM pg_class WHERE relname = 'pwned'") == [("0",)]
