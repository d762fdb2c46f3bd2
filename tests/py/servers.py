"""Start and stop the servers the tests talk to: threadgres and a PostgreSQL 15.

Used by conftest.py (see its docstring for the fixture API). Nothing here is
pytest-specific, so other harnesses can import it too.

Environment variables:
  THREADGRES_BIN       path of the threadgres binary to test. Unset: run
                       `cargo build --release` once (unless THREADGRES_NO_BUILD=1)
                       and use target/release/threadgres (target/debug as fallback).
  THREADGRES_ADDR      host:port of an already running threadgres to use instead
                       of starting one (trust auth).
  PG15_ADDR            host:port of an already running PostgreSQL 15 (trust auth
                       for user postgres) to use instead of starting one.
  PG_BINDIR            PostgreSQL binaries (default /usr/lib/postgresql/15/bin).
  PG_OS_USER           OS user that runs PostgreSQL when we are root (default tgtest;
                       created with useradd if missing).
  TG_KEEP_TMP=1        keep the temporary directories (data dir, logs) after the run.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import pgwire

REPO_ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
SCRAM_PASSWORD = "tg-Secret-pw1"
PG_SCRAM_USER = "scram_user"
START_TIMEOUT = 60.0


class ServerStartError(RuntimeError):
    pass


@dataclass
class ServerInfo:
    """Connection details of one running server.

    name:  "threadgres" or "pg15" (also the pytest param id)
    host, port, user, database, password (None for trust)
    """

    name: str
    host: str
    port: int
    user: str = "postgres"
    database: str = "postgres"
    password: Optional[str] = None
    process: Optional["ServerProcess"] = field(default=None, repr=False, compare=False)

    @property
    def is_pg(self) -> bool:
        return self.name.startswith("pg")

    @property
    def dsn(self) -> str:
        """libpq URI, e.g. postgresql://postgres@127.0.0.1:5433/postgres"""
        auth = urllib.parse.quote(self.user, safe="")
        if self.password is not None:
            auth += ":" + urllib.parse.quote(self.password, safe="")
        return f"postgresql://{auth}@{self.host}:{self.port}/{urllib.parse.quote(self.database, safe='')}"

    @property
    def conninfo(self) -> str:
        """libpq key=value string (sslmode=disable)."""
        s = f"host={self.host} port={self.port} user={self.user} dbname={self.database} sslmode=disable"
        if self.password is not None:
            s += f" password={self.password}"
        return s

    def env(self, base: Optional[dict] = None) -> dict:
        """Environment for libpq programs (psql, pgbench): PGHOST, PGPORT, ..."""
        e = dict(os.environ if base is None else base)
        for k in list(e):
            if k.startswith("PG") and k not in ("PG_BINDIR",):
                del e[k]
        e.update(
            PGHOST=self.host,
            PGPORT=str(self.port),
            PGUSER=self.user,
            PGDATABASE=self.database,
            PGSSLMODE="disable",
            PGCONNECT_TIMEOUT="10",
            PSQLRC="/dev/null",
        )
        if self.password is not None:
            e["PGPASSWORD"] = self.password
        return e

    def connect_raw(self, timeout: float = pgwire.DEFAULT_TIMEOUT, **kw) -> pgwire.Conn:
        """A started pgwire.Conn (see pgwire.Conn.connect for keyword arguments)."""
        kw.setdefault("user", self.user)
        kw.setdefault("database", self.database)
        kw.setdefault("password", self.password)
        return pgwire.Conn.connect(self.host, self.port, timeout=timeout, **kw)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _wait_ready(info: ServerInfo, proc: Optional[subprocess.Popen], log: Optional[Path], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise ServerStartError(
                f"{info.name} exited with status {proc.returncode} during start-up:\n{_tail(log)}"
            )
        try:
            c = info.connect_raw(timeout=5)
            c.close()
            return
        except (OSError, pgwire.PgWireError) as e:
            last = e
            time.sleep(0.1)
    raise ServerStartError(f"{info.name} did not accept connections within {timeout}s ({last!r}):\n{_tail(log)}")


def _tail(path: Optional[Path], n: int = 4000, start: int = 0) -> str:
    if path is None or not path.exists():
        return "(no log)"
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(max(start, size - n))
        return f.read().decode("utf-8", "replace")


def _terminate(proc: subprocess.Popen, sig: int, grace: float) -> None:
    if proc.poll() is not None:
        return
    try:
        proc.send_signal(sig)
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


class ServerProcess:
    """A server started (or adopted) by the harness."""

    name = "server"

    def __init__(self):
        self.proc: Optional[subprocess.Popen] = None
        self.log_path: Optional[Path] = None
        self.info: Optional[ServerInfo] = None
        self.external = False

    def restart(self) -> "ServerInfo":
        self.stop()
        return self.start()

    def alive(self) -> bool:
        return self.external or (self.proc is not None and self.proc.poll() is None)

    def returncode(self) -> Optional[int]:
        return None if self.proc is None else self.proc.poll()

    def ssl_cert_path(self) -> Optional[Path]:
        """The server's TLS certificate (self-signed: also the root to verify it with)."""
        return None

    def log_size(self) -> int:
        try:
            return self.log_path.stat().st_size if self.log_path else 0
        except OSError:
            return 0

    def log_since(self, offset: int, limit: int = 8000) -> str:
        if not self.log_path or not self.log_path.exists():
            return ""
        with open(self.log_path, "rb") as f:
            f.seek(offset)
            data = f.read()
        if len(data) > limit:
            data = b"...\n" + data[-limit:]
        return data.decode("utf-8", "replace")


class ThreadgresProcess(ServerProcess):
    """threadgres started as `threadgres --port P --listen 127.0.0.1 --log-level warn [extra]`,
    with `--data-dir <workdir>/<name>-data` unless extra gives one."""

    def __init__(self, binary: str, workdir: Path, extra_args: tuple = (), name: str = "threadgres",
                 password: Optional[str] = None):
        super().__init__()
        self.binary = binary
        self.workdir = workdir
        self.extra_args = tuple(extra_args)
        self.password = password
        self.name = name
        self.port: Optional[int] = None
        self.restarts = 0

    def start(self) -> ServerInfo:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = self.port or free_port()
        self.log_path = self.workdir / f"{self.name}.log"
        args = [self.binary, "--port", str(self.port), "--listen", HOST, "--log-level", "warn", *self.extra_args]
        if "--data-dir" not in self.extra_args:
            # Its own data directory (the self-signed TLS certificate lives there).
            args += ["--data-dir", str(self.data_dir())]
        if self.password is not None:
            args += ["--password", self.password]
        # settings come from the command line only, not from THREADGRES_* variables of the caller
        env = {k: v for k, v in os.environ.items() if not k.startswith("THREADGRES_")}
        env.setdefault("RUST_BACKTRACE", "1")
        logf = open(self.log_path, "ab")
        logf.write(f"--- start: {' '.join(args)}\n".encode())
        logf.flush()
        self.proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT, cwd=self.workdir,
            env=env, start_new_session=True,
        )
        logf.close()
        self.info = ServerInfo("threadgres", HOST, self.port, password=self.password, process=self)
        try:
            _wait_ready(self.info, self.proc, self.log_path, START_TIMEOUT)
        except ServerStartError:
            self.stop()
            raise
        return self.info

    def data_dir(self) -> Path:
        args = list(self.extra_args)
        if "--data-dir" in args:
            return Path(args[args.index("--data-dir") + 1])
        return self.workdir / f"{self.name}-data"

    def ssl_cert_path(self) -> Optional[Path]:
        args = list(self.extra_args)
        if "--ssl-cert-file" in args:
            return Path(args[args.index("--ssl-cert-file") + 1])
        return self.data_dir() / "server.crt"

    def stop(self) -> None:
        if self.proc is not None:
            _terminate(self.proc, signal.SIGTERM, 10)


class ExternalServer(ServerProcess):
    def __init__(self, name: str, addr: str, password: Optional[str] = None, user: str = "postgres"):
        super().__init__()
        host, _, port = addr.rpartition(":")
        self.external = True
        self.name = name
        self.info = ServerInfo(name, host or HOST, int(port), user=user, password=password, process=self)

    def start(self) -> ServerInfo:
        _wait_ready(self.info, None, None, START_TIMEOUT)
        return self.info

    def stop(self) -> None:
        pass


def _ensure_os_user(name: str) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        useradd = shutil.which("useradd") or "/usr/sbin/useradd"
        subprocess.run(
            [useradd, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
            check=True, capture_output=True,
        )
        return pwd.getpwnam(name)


class Pg15Cluster(ServerProcess):
    """A throwaway PostgreSQL 15 cluster: initdb in a temp dir, settings close to defaults.

    Differences from a stock cluster, all for determinism or speed:
    UTF8 / C.UTF-8 locale with English messages, TimeZone Etc/UTC, fsync off,
    listen on 127.0.0.1 only, a SCRAM-authenticated role `scram_user`
    (every other TCP login is trust), and ssl = on with a self-signed certificate made by
    `openssl` (as threadgres answers SSLRequest with 'S' by default).
    """

    name = "pg15"

    def __init__(self, workdir: Path):
        super().__init__()
        self.workdir = workdir
        self.bindir = Path(os.environ.get("PG_BINDIR", "/usr/lib/postgresql/15/bin"))
        self.datadir = workdir / "data"
        self.port = free_port()
        self.os_user: Optional[pwd.struct_passwd] = None

    def _run_kwargs(self) -> dict:
        kw: dict = {"cwd": self.workdir}
        if self.os_user is not None:
            kw.update(user=self.os_user.pw_uid, group=self.os_user.pw_gid, extra_groups=[])
            env = dict(os.environ, HOME=str(self.workdir), USER=self.os_user.pw_name, LOGNAME=self.os_user.pw_name)
        else:
            env = dict(os.environ)
        env.update(LC_ALL="C.UTF-8", LANG="C.UTF-8", TZ="Etc/UTC")
        for k in [k for k in env if k.startswith("PG")]:
            del env[k]
        kw["env"] = env
        return kw

    def start(self) -> ServerInfo:
        if not (self.bindir / "postgres").exists():
            raise ServerStartError(f"PostgreSQL 15 binaries not found in {self.bindir} (set PG_BINDIR)")
        self.workdir.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            self.os_user = _ensure_os_user(os.environ.get("PG_OS_USER", "tgtest"))
            os.chown(self.workdir, self.os_user.pw_uid, self.os_user.pw_gid)
        os.chmod(self.workdir, 0o700)
        kw = self._run_kwargs()
        if not (self.datadir / "PG_VERSION").exists():
            self._initdb(kw)
        self.log_path = self.workdir / "postgres.log"
        logf = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [str(self.bindir / "postgres"), "-D", str(self.datadir)],
            stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT, start_new_session=True, **kw,
        )
        logf.close()
        self.info = ServerInfo("pg15", HOST, self.port, process=self)
        try:
            _wait_ready(self.info, self.proc, self.log_path, START_TIMEOUT)
            with self.info.connect_raw() as c:
                if not c.simple(f"SELECT 1 FROM pg_roles WHERE rolname = '{PG_SCRAM_USER}'"):
                    c.simple(f"CREATE ROLE {PG_SCRAM_USER} LOGIN SUPERUSER PASSWORD '{SCRAM_PASSWORD}'")
                version = c.parameters.get("server_version", "")
            if not version.startswith("15"):
                raise ServerStartError(f"expected PostgreSQL 15, got server_version {version!r}")
        except BaseException:
            self.stop()
            raise
        return self.info

    def _initdb(self, kw: dict) -> None:
        r = subprocess.run(
            [str(self.bindir / "initdb"), "-D", str(self.datadir), "-U", "postgres", "-A", "trust",
             "-E", "UTF8", "--locale=C.UTF-8", "--lc-messages=C", "--no-sync", "--no-instructions"],
            capture_output=True, timeout=180, **kw,
        )
        if r.returncode != 0:
            raise ServerStartError(f"initdb failed:\n{r.stdout.decode()}\n{r.stderr.decode()}")
        r = subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-nodes", "-subj", "/CN=localhost", "-days", "3650",
             "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
             "-keyout", str(self.datadir / "server.key"), "-out", str(self.datadir / "server.crt")],
            capture_output=True, timeout=60, **kw,
        )
        if r.returncode != 0:
            raise ServerStartError(f"openssl failed:\n{r.stdout.decode()}\n{r.stderr.decode()}")
        os.chmod(self.datadir / "server.key", 0o600)
        with open(self.datadir / "postgresql.conf", "a") as f:
            f.write(
                "\n# threadgres test harness\n"
                "ssl = on\n"
                f"port = {self.port}\n"
                f"listen_addresses = '{HOST}'\n"
                f"unix_socket_directories = '{self.workdir}'\n"
                "timezone = 'Etc/UTC'\n"
                "log_timezone = 'Etc/UTC'\n"
                "datestyle = 'iso, mdy'\n"
                "lc_messages = 'C'\n"
                "fsync = off\n"
                "full_page_writes = off\n"
                "logging_collector = off\n"
                "log_min_messages = warning\n"
            )
        with open(self.datadir / "pg_hba.conf", "w") as f:
            f.write(
                "local all all trust\n"
                f"host all {PG_SCRAM_USER} 127.0.0.1/32 scram-sha-256\n"
                "host all all 127.0.0.1/32 trust\n"
            )

    def ssl_cert_path(self) -> Optional[Path]:
        return self.datadir / "server.crt"

    def scram_info(self) -> ServerInfo:
        assert self.info is not None
        return ServerInfo("pg15", HOST, self.port, user=PG_SCRAM_USER, password=SCRAM_PASSWORD, process=self)

    def stop(self) -> None:
        if self.proc is not None:
            _terminate(self.proc, signal.SIGINT, 30)


_BUILT: dict = {}


def threadgres_binary() -> str:
    """Path of the threadgres binary (see THREADGRES_BIN / THREADGRES_NO_BUILD)."""
    env = os.environ.get("THREADGRES_BIN")
    if env:
        p = Path(env)
        if not p.is_absolute():
            p = REPO_ROOT / p
        if not p.exists():
            raise ServerStartError(f"THREADGRES_BIN={env} does not exist")
        return str(p)
    if "bin" in _BUILT:
        return _BUILT["bin"]
    if os.environ.get("THREADGRES_NO_BUILD") != "1":
        if not (REPO_ROOT / "Cargo.toml").exists():
            raise ServerStartError(f"no Cargo.toml in {REPO_ROOT}: threadgres cannot be built")
        r = subprocess.run(["cargo", "build", "--release"], cwd=REPO_ROOT, capture_output=True, timeout=3600)
        if r.returncode != 0:
            raise ServerStartError("cargo build --release failed:\n" + r.stderr.decode("utf-8", "replace")[-6000:])
    candidates = [REPO_ROOT / "target/release/threadgres", REPO_ROOT / "target/debug/threadgres"]
    existing = [c for c in candidates if c.exists()]
    if not existing:
        raise ServerStartError("threadgres binary not found (looked in target/release and target/debug)")
    _BUILT["bin"] = str(existing[0])
    return _BUILT["bin"]


def make_tmpdir(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(path, 0o755)  # the PostgreSQL OS user must be able to traverse it
    return path


def remove_tmpdir(path: Path) -> None:
    if os.environ.get("TG_KEEP_TMP") == "1":
        return
    shutil.rmtree(path, ignore_errors=True)
