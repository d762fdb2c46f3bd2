"""TLS: SSLRequest answered 'S', the handshake, and sessions inside it (issue 18).

Differential scenarios run against PostgreSQL 15 (started by the harness with ssl = on and an
`openssl` self-signed certificate) and threadgres (its own self-signed certificate in its data
directory): the negotiation's edge cases (bytes sent along with the SSLRequest, a second
request inside TLS, GSSENCRequest before and after) and pg_stat_ssl's row for a TLS session.

Then real clients over TLS against threadgres: psql with sslmode=require (the self-signed
certificate) and verify-full (a test CA made with openssl, threadgres started with
--ssl-cert-file / --ssl-key-file), client certificates (--ssl-ca-file; pg_stat_ssl's client_dn,
client_serial and issuer_dn compared with a PostgreSQL 15 given the same CA), psycopg, asyncpg,
plain connections beside them, `--ssl off` (answers 'N'), large results and COPY through TLS, notifications pushed to a TLS session, the
data directory's certificate reused across restarts, and start-up errors for bad files.
(pgjdbc, node-postgres and Go's lib/pq: tests/clients, run by test_clients_other.py.)
"""

from __future__ import annotations

import asyncio
import os
import socket
import ssl
import struct
import subprocess
from pathlib import Path

import pytest

import difftest
import pgwire
import servers

SSL_REQUEST = struct.pack("!ii", 8, pgwire.SSL_REQUEST_CODE)
GSSENC_REQUEST = struct.pack("!ii", 8, pgwire.GSSENC_REQUEST_CODE)


# ------------------------------------------------------------------ differential scenarios

def tls_session_with_pg_stat_ssl(sc):
    s = sc.raw_session("s1")
    s.raw(SSL_REQUEST, "SSLRequest")
    s.read_byte()
    s.start_tls()
    s.startup()
    s.q("SELECT ssl, version, cipher, bits, client_dn, client_serial, issuer_dn "
        "FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
    s.q("SELECT count(*) FROM pg_stat_ssl WHERE ssl AND pid = pg_backend_pid()")
    s.q("SHOW ssl")


def plain_session_in_pg_stat_ssl(sc):
    s = sc.session("s1")
    s.q("SELECT * FROM pg_stat_ssl WHERE pid = pg_backend_pid()", mask=True)
    s.q("SET ssl = off")
    s.q("SET ssl_cert_file = 'x.crt'")
    s.q("RESET ssl_key_file")
    s.q("SET data_directory = '/tmp'")


def unencrypted_data_after_ssl_request(sc):
    # The StartupMessage sent along with the SSLRequest, before the answer: after the
    # handshake, FATAL 08P01 (inside TLS).
    s = sc.raw_session("s1")
    s.raw(SSL_REQUEST + pgwire.startup_packet({"user": "postgres", "database": "postgres"}),
          "SSLRequest + StartupMessage in one write")
    s.read_byte()
    s.start_tls()
    s.expect_close()


def second_ssl_request_inside_tls(sc):
    s = sc.raw_session("s1")
    s.raw(SSL_REQUEST, "SSLRequest")
    s.read_byte()
    s.start_tls()
    s.raw(SSL_REQUEST, "SSLRequest again, inside TLS")
    s.expect_close()


def gssenc_request_inside_tls(sc):
    s = sc.raw_session("s1")
    s.raw(SSL_REQUEST, "SSLRequest")
    s.read_byte()
    s.start_tls()
    s.raw(GSSENC_REQUEST, "GSSENCRequest inside TLS")
    s.expect_close()


def cancel_request_inside_tls(sc):
    # A CancelRequest may come inside TLS too: the connection closes without an answer.
    s = sc.raw_session("s1")
    s.raw(SSL_REQUEST, "SSLRequest")
    s.read_byte()
    s.start_tls()
    s.raw(struct.pack("!iiii", 16, 80877102, 1, 2), "CancelRequest for nobody")
    s.expect_close()


SCENARIOS = {
    f.__name__: f for f in [
        tls_session_with_pg_stat_ssl, plain_session_in_pg_stat_ssl,
        unencrypted_data_after_ssl_request, second_ssl_request_inside_tls, gssenc_request_inside_tls,
        cancel_request_inside_tls,
    ]
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_tls_protocol(pg, server, name):
    difftest.run_differential(pg, server, SCENARIOS[name], key=f"tls:{name}")


def test_both_servers_answer_s(pg, tg):
    for info in (pg, tg):
        with socket.create_connection((info.host, info.port), timeout=10) as s:
            s.sendall(SSL_REQUEST)
            assert s.recv(1) == b"S", info.name


# ------------------------------------------------------------------ helpers

def _psql(info: servers.ServerInfo, conninfo: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = info.env()
    env.pop("PGSSLMODE", None)
    r = subprocess.run(["psql", "-X", "-At", conninfo, *args], env=env, capture_output=True, text=True,
                       timeout=60)
    if check:
        assert r.returncode == 0, f"psql failed: {r.stderr}"
    return r


def _conninfo(info, **kw) -> str:
    parts = {"host": info.host, "port": info.port, "user": info.user, "dbname": info.database, **kw}
    return " ".join(f"{k}={v}" for k, v in parts.items())


SSL_ROW = "SELECT ssl_is_used(), ssl_version(), ssl_cipher() IS NOT NULL, " \
          "(SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid())"


def _openssl(*args: str, cwd: Path) -> None:
    r = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


@pytest.fixture(scope="module")
def test_ca(tmp_root) -> Path:
    """A CA and a server certificate it signed for localhost and 127.0.0.1 (ca.crt, server.crt,
    server.key), and a second CA that signed nothing (other-ca.crt)."""
    d = tmp_root / "tls-ca"
    d.mkdir(exist_ok=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl("req", "-x509", *ec, "-subj", "/CN=threadgres test CA", "-days", "30",
             "-keyout", "ca.key", "-out", "ca.crt", cwd=d)
    _openssl("req", "-x509", *ec, "-subj", "/CN=other CA", "-days", "30",
             "-keyout", "other-ca.key", "-out", "other-ca.crt", cwd=d)
    _openssl("req", *ec, "-subj", "/CN=localhost", "-keyout", "server.key", "-out", "server.csr", cwd=d)
    (d / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
             "-days", "30", "-extfile", "san.ext", "-out", "server.crt", cwd=d)
    os.chmod(d / "server.key", 0o600)
    # Client certificates (X.509 v3: rustls's verifier refuses v1 certificates, which OpenSSL
    # still accepts): one signed by the CA (a name that needs RFC 2253 escaping), one by the
    # other CA.
    (d / "client.ext").write_text("basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
    for name, ca, subj in (("client", "ca", "/CN=alice, \"the\" user/O=Example/emailAddress=a@example.org"),
                           ("stranger", "other-ca", "/CN=mallory")):
        _openssl("req", *ec, "-subj", subj, "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=d)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key",
                 "-CAcreateserial", "-days", "30", "-extfile", "client.ext", "-out", f"{name}.crt", cwd=d)
        os.chmod(d / f"{name}.key", 0o600)
    return d


@pytest.fixture(scope="module")
def tg_ca(tmp_root, test_ca):
    """threadgres with the test CA's server certificate."""
    p = servers.ThreadgresProcess(
        servers.threadgres_binary(), tmp_root / "tls-ca-server", name="threadgres-ca",
        extra_args=("--ssl-cert-file", str(test_ca / "server.crt"),
                    "--ssl-key-file", str(test_ca / "server.key")))
    p.start()
    yield p.info
    p.stop()


@pytest.fixture(scope="module")
def tg_client_certs(tmp_root, test_ca):
    """threadgres asking clients for certificates of the test CA (--ssl-ca-file)."""
    p = servers.ThreadgresProcess(
        servers.threadgres_binary(), tmp_root / "tls-client-certs", name="threadgres-client-certs",
        extra_args=("--ssl-cert-file", str(test_ca / "server.crt"), "--ssl-key-file", str(test_ca / "server.key"),
                    "--ssl-ca-file", str(test_ca / "ca.crt")))
    p.start()
    yield p.info
    p.stop()


@pytest.fixture(scope="module")
def pg_client_certs(tmp_root, test_ca):
    """A PostgreSQL 15 of its own with ssl_ca_file = the test CA."""
    import shutil
    import time
    p = servers.Pg15Cluster(tmp_root / "pg-client-certs")
    p.start()
    ca = p.datadir / "test-ca.crt"
    shutil.copy(test_ca / "ca.crt", ca)
    if p.os_user is not None:
        os.chown(ca, p.os_user.pw_uid, p.os_user.pw_gid)
    _psql(p.info, _conninfo(p.info, sslmode="disable"), "-c", f"ALTER SYSTEM SET ssl_ca_file = '{ca}'",
          "-c", "SELECT pg_reload_conf()")
    for _ in range(100):
        r = _psql(p.info, _conninfo(p.info, sslmode="disable"), "-c", "SHOW ssl_ca_file")
        if r.stdout.strip() == str(ca):
            break
        time.sleep(0.1)
    yield p.info
    p.stop()


# ------------------------------------------------------------------ psql

def test_psql_sslmode_require_with_the_self_signed_certificate(tg):
    r = _psql(tg, _conninfo(tg, sslmode="require"), "-c", SSL_ROW)
    assert r.stdout.strip() == "t|TLSv1.3|t|t"
    r = _psql(tg, _conninfo(tg, sslmode="require"), "-c", "\\conninfo")
    assert "SSL connection (protocol: TLSv1.3" in r.stdout


def test_psql_plain_connection_still_works(tg):
    r = _psql(tg, _conninfo(tg, sslmode="disable"), "-c", SSL_ROW)
    assert r.stdout.strip() == "f||f|f"


def test_psql_verify_full_against_the_test_ca(tg_ca, test_ca):
    for host in ("localhost", "127.0.0.1"):
        ci = _conninfo(tg_ca, host=host, sslmode="verify-full", sslrootcert=test_ca / "ca.crt")
        r = _psql(tg_ca, ci, "-c", SSL_ROW)
        assert r.stdout.strip() == "t|TLSv1.3|t|t", host
    r = _psql(tg_ca, _conninfo(tg_ca, sslmode="require"), "-c", "SHOW ssl_cert_file")
    assert r.stdout.strip() == str(test_ca / "server.crt")


def test_psql_verify_full_refuses_a_certificate_it_cannot_verify(tg, tg_ca, test_ca):
    # The self-signed certificate is not signed by the test CA ...
    ci = _conninfo(tg, sslmode="verify-full", sslrootcert=test_ca / "ca.crt")
    r = _psql(tg, ci, "-c", "SELECT 1", check=False)
    assert r.returncode != 0 and "certificate verify failed" in r.stderr, r.stderr
    # ... and the test CA's server certificate is not signed by another CA.
    ci = _conninfo(tg_ca, sslmode="verify-ca", sslrootcert=test_ca / "other-ca.crt")
    r = _psql(tg_ca, ci, "-c", "SELECT 1", check=False)
    assert r.returncode != 0 and "certificate verify failed" in r.stderr, r.stderr


def test_ssl_off_answers_n(tg_dedicated):
    p = tg_dedicated("--ssl", "off", name="threadgres-ssl-off")
    info = p.info
    with socket.create_connection((info.host, info.port), timeout=10) as s:
        s.sendall(SSL_REQUEST)
        assert s.recv(1) == b"N"
    r = _psql(info, _conninfo(info, sslmode="require"), "-c", "SELECT 1", check=False)
    assert r.returncode != 0 and "server does not support SSL" in r.stderr, r.stderr
    r = _psql(info, _conninfo(info, sslmode="prefer"), "-c", "SHOW ssl", "-c", SSL_ROW)
    assert r.stdout.split() == ["off", "f||f|f"]


CLIENT_ROW = "SELECT ssl, client_dn, client_serial, issuer_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()"


def test_client_certificates_in_pg_stat_ssl_as_postgres_shows_them(tg_client_certs, pg_client_certs, test_ca):
    results = {}
    for info in (pg_client_certs, tg_client_certs):
        with_cert = _conninfo(info, sslmode="require", sslcert=test_ca / "client.crt", sslkey=test_ca / "client.key")
        without = _conninfo(info, sslmode="require")
        results[info.name] = (
            _psql(info, with_cert, "-c", CLIENT_ROW).stdout,
            _psql(info, without, "-c", CLIENT_ROW).stdout,
        )
        stranger = _conninfo(info, sslmode="require", sslcert=test_ca / "stranger.crt",
                             sslkey=test_ca / "stranger.key")
        r = _psql(info, stranger, "-c", "SELECT 1", check=False)
        assert r.returncode != 0 and "unknown ca" in r.stderr, (info.name, r.stderr)
    assert results["threadgres"] == results["pg15"]
    assert results["pg15"][0].startswith('t|/CN=alice\\, \\"the\\" user/O=Example/emailAddress=a@example.org|')
    assert results["pg15"][1].strip() == "t|||"
    with_cert = _conninfo(tg_client_certs, sslmode="require", sslcert=test_ca / "client.crt",
                          sslkey=test_ca / "client.key")
    r = _psql(tg_client_certs, with_cert, "-c",
              "SELECT ssl_client_cert_present(), ssl_client_dn() = client_dn, ssl_client_serial() = client_serial, "
              "ssl_issuer_dn() FROM pg_stat_ssl WHERE pid = pg_backend_pid()", "-c", "SHOW ssl_ca_file")
    assert r.stdout.split("\n")[:2] == ["t|t|t|/CN=threadgres test CA", str(test_ca / "ca.crt")]


# ------------------------------------------------------------------ Python drivers

def test_psycopg_over_tls(tg, tg_ca, test_ca):
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(_conninfo(tg, sslmode="require"), connect_timeout=10) as c:
        assert c.execute(SSL_ROW).fetchone() == (True, "TLSv1.3", True, True)
        assert c.info.pgconn.ssl_in_use
        # Parameters, binary results and a transaction through TLS.
        with c.transaction():
            cur = c.execute("SELECT %s::int + 1, %s::text", (41, "x" * 100_000), binary=True)
            assert cur.fetchone() == (42, "x" * 100_000)
    ci = _conninfo(tg_ca, host="localhost", sslmode="verify-full", sslrootcert=test_ca / "ca.crt")
    with psycopg.connect(ci, connect_timeout=10) as c:
        assert c.execute("SELECT ssl_is_used()").fetchone() == (True,)


def test_asyncpg_over_tls(tg, tg_ca, test_ca):
    asyncpg = pytest.importorskip("asyncpg")

    async def run():
        c = await asyncpg.connect(host=tg.host, port=tg.port, user=tg.user, database=tg.database,
                                  ssl="require", timeout=10)
        try:
            row = await c.fetchrow(SSL_ROW)
            assert tuple(row) == (True, "TLSv1.3", True, True)
            assert await c.fetchval("SELECT $1::int8 * 2", 21) == 42
        finally:
            await c.close()
        ctx = ssl.create_default_context(cafile=str(test_ca / "ca.crt"))
        c = await asyncpg.connect(host="localhost", port=tg_ca.port, user=tg_ca.user, database=tg_ca.database,
                                  ssl=ctx, timeout=10)
        try:
            assert await c.fetchval("SELECT ssl_is_used()") is True
        finally:
            await c.close()
    asyncio.run(run())


# ------------------------------------------------------------------ the socket loop under TLS

def _tls_conn(info) -> pgwire.Conn:
    c = pgwire.Conn.raw(info.host, info.port)
    c.send(SSL_REQUEST)
    assert c.recv_byte() == b"S"
    c.start_tls()
    c.startup(user=info.user, database=info.database)
    return c


def test_large_results_and_copy_through_tls(tg):
    psycopg = pytest.importorskip("psycopg")
    with psycopg.connect(_conninfo(tg, sslmode="require"), connect_timeout=10, autocommit=True) as c:
        # Several MiB out, in rows and in one value, larger than rustls's send buffer.
        rows = c.execute("SELECT g, repeat('y', 100) FROM generate_series(1, 50000) g").fetchall()
        assert len(rows) == 50000 and rows[-1] == (50000, "y" * 100)
        big = c.execute("SELECT repeat('z', 5000000)").fetchone()[0]
        assert big == "z" * 5_000_000
        # And in: COPY FROM STDIN of a few MiB.
        c.execute("DROP TABLE IF EXISTS tls_copy")
        c.execute("CREATE TABLE tls_copy (a int, b text)")
        with c.cursor().copy("COPY tls_copy FROM STDIN") as cp:
            for i in range(30000):
                cp.write_row((i, "w" * 100))
        assert c.execute("SELECT count(*), sum(length(b)) FROM tls_copy").fetchone() == (30000, 3_000_000)
        c.execute("DROP TABLE tls_copy")


def test_pipelined_queries_and_notifications_through_tls(tg):
    c = _tls_conn(tg)
    other = _tls_conn(tg)
    try:
        # Many queries in one write: the session reads them through rustls in pieces.
        c.send(b"".join(pgwire.frame(b"Q", f"SELECT {i}\x00".encode()) for i in range(500)))
        values = []
        for _ in range(500):
            msgs = c.read_until("Z")
            values += [m for m in msgs if m.type == "D"]
        assert len(values) == 500
        c.simple("LISTEN tls_chan")
        other.simple("NOTIFY tls_chan, 'over tls'")
        m = c.recv(10)
        while m.type != "A":
            m = c.recv(10)
        assert m.fields[2] == "over tls"
    finally:
        c.close()
        other.close()


def test_plaintext_after_s_closes_and_the_server_goes_on(tg):
    with socket.create_connection((tg.host, tg.port), timeout=10) as s:
        s.sendall(SSL_REQUEST)
        assert s.recv(1) == b"S"
        s.sendall(pgwire.startup_packet({"user": "postgres", "database": "postgres"}))
        s.settimeout(10)
        data = b""
        try:
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        except ConnectionResetError:
            pass
        # At most a TLS alert record (content type 21), never a protocol message.
        assert data == b"" or data[0] == 21, data[:20]
    _psql(tg, _conninfo(tg, sslmode="require"), "-c", "SELECT 1")


def test_sessions_following_their_clients_keep_tls(tg_dedicated):
    # Two shards: a session that moves to its client's CPU takes its TLS state along.
    p = tg_dedicated("--worker-threads", "2", name="threadgres-tls-shards")
    psycopg = pytest.importorskip("psycopg")
    conns = [psycopg.connect(_conninfo(p.info, sslmode="require"), connect_timeout=10, autocommit=True)
             for _ in range(4)]
    try:
        for _ in range(300):
            for c in conns:
                assert c.execute("SELECT ssl_is_used()").fetchone() == (True,)
    finally:
        for c in conns:
            c.close()


# ------------------------------------------------------------------ data directory and files

def test_the_self_signed_pair_is_made_once_and_reused(tg_dedicated, tmp_root):
    work = tmp_root / "tls-reuse"
    p = tg_dedicated(name="threadgres-reuse", workdir=work)
    data = work / "threadgres-reuse-data"
    cert = (data / "server.crt").read_bytes()
    assert (data / "server.key").stat().st_mode & 0o777 == 0o600
    assert data.stat().st_mode & 0o777 == 0o700
    r = _psql(p.info, _conninfo(p.info, sslmode="require"), "-c", "SHOW data_directory", "-c",
              "SHOW ssl_cert_file", "-c", "SHOW ssl_key_file")
    assert r.stdout.split() == [str(data), str(data / "server.crt"), str(data / "server.key")]
    p.restart()
    assert (data / "server.crt").read_bytes() == cert
    # Beside the pair: the data directory's own files (durable/), nothing else.
    assert sorted(x.name for x in data.iterdir()) == [
        "THREADGRES_VERSION", "checkpoint", "pg_wal", "postmaster.pid", "server.crt", "server.key"]
    # The certificate names localhost and 127.0.0.1 (verify-full with it as its own root).
    ci = _conninfo(p.info, host="localhost", sslmode="verify-full", sslrootcert=data / "server.crt")
    assert _psql(p.info, ci, "-c", "SELECT ssl_is_used()").stdout.strip() == "t"


def _start_fails(tmp_root, name: str, *args: str) -> str:
    work = tmp_root / name
    work.mkdir(exist_ok=True)
    r = subprocess.run([servers.threadgres_binary(), "--port", "1", "--data-dir", str(work / "data"), *args],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2, r
    return r.stderr


def test_bad_certificate_files_keep_the_server_from_starting(tmp_root, test_ca):
    err = _start_fails(tmp_root, "tls-missing", "--ssl-cert-file", "/nonexistent/server.crt",
                       "--ssl-key-file", str(test_ca / "server.key"))
    assert 'could not load server certificate file "/nonexistent/server.crt": No such file or directory' in err
    open_key = tmp_root / "open.key"
    open_key.write_bytes((test_ca / "server.key").read_bytes())
    os.chmod(open_key, 0o644)
    err = _start_fails(tmp_root, "tls-open-key", "--ssl-cert-file", str(test_ca / "server.crt"),
                       "--ssl-key-file", str(open_key))
    assert "has group or world access" in err
    err = _start_fails(tmp_root, "tls-mismatch", "--ssl-cert-file", str(test_ca / "ca.crt"),
                       "--ssl-key-file", str(test_ca / "server.key"))
    assert "could not load private key file" in err
    err = _start_fails(tmp_root, "tls-half", "--ssl-cert-file", str(test_ca / "server.crt"))
    assert "must be given together" in err
