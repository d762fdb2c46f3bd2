"""Go (pgx v5), Node.js (node-postgres) and Java (pgjdbc) client suites against both servers.

The client programs live in tests/clients/{go,node,java}; each runs named checks and prints
"ok <check>" or "FAIL <check>: <error>". Every program is built once per session (go build /
npm ci / mvn package; outputs cached under the .gitignored go/bin, node/node_modules,
java/target) and then run once per (check, server), so each check is its own test:

    test_pgx[<check>-threadgres]   test_node_pg[<check>-pg15]   test_pgjdbc[<check>-threadgres] ...

Select with -k as usual (-k pg15, -k "pgjdbc and threadgres", -k listen). A missing toolchain
(go, node/npm, java/mvn) or a failed build FAILS the tests instead of skipping them, so CI
cannot pass vacuously. Checks whose name ends in "_table" (and copy_from_table) need
CREATE TABLE / DML; the others use SELECTs and session settings only.

Run a client by hand (see tests/clients/README.md):
    tests/clients/go/bin/clienttest -dsn postgresql://postgres@127.0.0.1:55444/postgres [check ...]
    node tests/clients/node/clienttest.js --dsn postgresql://... [check ...]
    java -jar tests/clients/java/target/clienttest.jar postgresql://... [check ...]
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import Callable

import pytest

import servers

CLIENTS = servers.REPO_ROOT / "tests" / "clients"
GO_DIR = CLIENTS / "go"
NODE_DIR = CLIENTS / "node"
JAVA_DIR = CLIENTS / "java"

BUILD_TIMEOUT = 600   # seconds per build step (first builds download modules / packages)
CHECK_TIMEOUT = 90    # seconds per check process (each check also bounds itself, 20-30 s)

# The builds can take minutes the first time; each check process is bounded by CHECK_TIMEOUT.
pytestmark = pytest.mark.timeout(BUILD_TIMEOUT * 2 + CHECK_TIMEOUT)

# Check names, in program order; test_check_lists keeps them in sync with the programs.
GO_CHECKS = [
    "connect", "simple_protocol", "simple_protocol_table", "ping", "params_binary", "params_text",
    "results_text_format", "numeric", "null_params", "statement_cache", "statement_cache_table",
    "prepare_describe", "exec_mode_exec", "batch", "batch_table", "transactions", "transactions_table",
    "savepoints", "savepoints_table", "errors_sqlstate", "listen_notify", "copy_from_table",
    "libpq_default_sslmode", "tls_require",
]
NODE_CHECKS = [
    "connect", "simple_multi_statement", "params", "types", "timestamptz_params", "params_arrays",
    "bytea_buffer", "json", "named_statements", "transactions", "errors_sqlstate", "listen_notify",
    "crud_table", "ssl_no_verify", "ssl_with_ca",
]
JAVA_CHECKS = [
    "connect", "show_statement", "prepared_types", "prepared_nulls", "select_statements", "is_valid",
    "autocommit_transactions", "transaction_isolation", "savepoints", "errors_sqlstate", "notifications",
    "dml_table", "ssl_require",
]


# ---------------------------------------------------------------- helpers

def _tool(name: str, *fallbacks: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for f in fallbacks:
        if Path(f).exists():
            return f
    pytest.fail(f"toolchain missing: `{name}` not found on PATH (needed by the {name} client suite; "
                f"install it on the test machine — these tests must not be skipped)", pytrace=False)


def _client_env() -> dict:
    """The caller's environment without libpq PG* variables (the DSN says everything)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG") or k == "PG_BINDIR"}
    env.setdefault("HOME", "/root")
    return env


def _run_build(args: list[str], cwd: Path, what: str, env: dict | None = None) -> None:
    try:
        r = subprocess.run(args, cwd=cwd, env=env or _client_env(), capture_output=True, text=True,
                           timeout=BUILD_TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{what}: `{' '.join(args)}` did not finish within {BUILD_TIMEOUT}s\n"
                    f"stdout: {e.stdout!r}\nstderr: {e.stderr!r}", pytrace=False)
    if r.returncode != 0:
        pytest.fail(f"{what}: `{' '.join(args)}` failed with status {r.returncode}\n"
                    f"--- stdout\n{r.stdout[-6000:]}\n--- stderr\n{r.stderr[-6000:]}", pytrace=False)


@contextlib.contextmanager
def _build_lock(name: str):
    """Serialize builds of one client between concurrent pytest processes."""
    with open(CLIENTS / f".{name}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _newest_mtime(paths) -> float:
    return max((p.stat().st_mtime for p in paths if p.is_file()), default=0.0)


def _require_built(holder: dict, name: str) -> list[str]:
    if "error" in holder:
        pytest.fail(holder["error"], pytrace=False)
    return holder["cmd"]


def _session_build(name: str, build: Callable[[], list[str]]) -> dict:
    """Run build() once; remember a failure so that every test of this client reports it."""
    holder: dict = {}
    try:
        with _build_lock(name):
            holder["cmd"] = build()
    except pytest.fail.Exception as e:
        holder["error"] = str(e)
    return holder


# ---------------------------------------------------------------- builds (once per session)

def _build_go() -> list[str]:
    go = _tool("go", "/usr/local/go/bin/go")
    out = GO_DIR / "bin" / "clienttest"
    env = _client_env()
    env.setdefault("GOFLAGS", "")
    env["GOFLAGS"] = (env["GOFLAGS"] + " -mod=readonly").strip()
    # go build is incremental (build cache): cheap when nothing changed
    _run_build([go, "build", "-o", str(out), "."], GO_DIR, "Go client build", env)
    return [str(out), "-dsn", "{dsn}"]


def _build_node() -> list[str]:
    node = _tool("node")
    npm = _tool("npm")
    lock = NODE_DIR / "package-lock.json"
    stamp = NODE_DIR / "node_modules" / ".threadgres-lock-sha256"
    digest = hashlib.sha256(lock.read_bytes() + (NODE_DIR / "package.json").read_bytes()).hexdigest()
    installed = (NODE_DIR / "node_modules" / "pg" / "package.json").exists()
    if not (installed and stamp.exists() and stamp.read_text().strip() == digest):
        _run_build([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], NODE_DIR, "Node client install (npm ci)")
        stamp.write_text(digest + "\n")
    return [node, str(NODE_DIR / "clienttest.js"), "--dsn", "{dsn}"]


def _build_java() -> list[str]:
    java = _tool("java")
    mvn = _tool("mvn")
    jar = JAVA_DIR / "target" / "clienttest.jar"
    sources = [JAVA_DIR / "pom.xml", *(JAVA_DIR / "src").rglob("*")]
    have_driver = any((JAVA_DIR / "target" / "lib").glob("postgresql-*.jar"))
    if not (jar.exists() and have_driver and jar.stat().st_mtime >= _newest_mtime(sources)):
        _run_build([mvn, "-q", "-B", "package"], JAVA_DIR, "Java client build (mvn package)")
        if not jar.exists():
            pytest.fail(f"mvn package did not produce {jar}", pytrace=False)
    return [java, "-jar", str(jar), "{dsn}"]


@pytest.fixture(scope="session")
def go_build():
    return _session_build("go", _build_go)


@pytest.fixture(scope="session")
def node_build():
    return _session_build("node", _build_node)


@pytest.fixture(scope="session")
def java_build():
    return _session_build("java", _build_java)


# ---------------------------------------------------------------- running checks

def _run_check(cmd: list[str], server, check: str, client: str) -> None:
    args = [a.replace("{dsn}", server.dsn) for a in cmd] + [check]
    env = _client_env()
    cert = server.process.ssl_cert_path() if server.process is not None else None
    if cert is not None:
        # The server's self-signed certificate, as the root to verify it with (ssl_with_ca).
        env["TG_SSL_ROOT_CERT"] = str(cert)
    try:
        r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=CHECK_TIMEOUT,
                           stdin=subprocess.DEVNULL, cwd=CLIENTS)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{client} check {check} against {server.name}: no result within {CHECK_TIMEOUT}s\n"
                    f"stdout: {e.stdout!r}\nstderr: {e.stderr!r}", pytrace=False)
    lines = r.stdout.splitlines()
    ok = f"ok {check}" in lines
    fail = [ln for ln in lines if ln.startswith(f"FAIL {check}")]
    if ok and not fail and r.returncode == 0:
        return
    detail = fail[0] if fail else f"no result line for {check!r} (exit status {r.returncode})"
    pytest.fail(f"{client} against {server.name}: {detail}\n--- stdout\n{r.stdout[-4000:]}"
                f"\n--- stderr\n{r.stderr[-4000:]}", pytrace=False)


@pytest.mark.parametrize("check", GO_CHECKS)
def test_pgx(go_build, server, check):
    _run_check(_require_built(go_build, "go"), server, check, "pgx v5")


@pytest.mark.parametrize("check", NODE_CHECKS)
def test_node_pg(node_build, server, check):
    _run_check(_require_built(node_build, "node"), server, check, "node-postgres")


@pytest.mark.parametrize("check", JAVA_CHECKS)
def test_pgjdbc(java_build, server, check):
    _run_check(_require_built(java_build, "java"), server, check, "pgjdbc")


@pytest.mark.parametrize("client", ["go", "node", "java"])
def test_check_lists(request, client):
    """The Python lists above name exactly the checks each program has (no check is left out)."""
    holder = request.getfixturevalue(f"{client}_build")
    cmd = [a for a in _require_built(holder, client) if a not in ("{dsn}", "-dsn", "--dsn")]
    r = subprocess.run(cmd + ["--list"], env=_client_env(), capture_output=True, text=True,
                       timeout=CHECK_TIMEOUT, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    expected = {"go": GO_CHECKS, "node": NODE_CHECKS, "java": JAVA_CHECKS}[client]
    assert r.stdout.split() == expected
