"""pytest fixtures that start threadgres and PostgreSQL 15 (imported by conftest.py).

Fixtures (each returns a servers.ServerInfo with .name .host .port .user
.database .password .dsn .conninfo .env() .connect_raw()):

  pg            PostgreSQL 15 (one per session, trust auth, user/db postgres)
  tg            threadgres (one per session, trust auth). If it dies during a
                test, that test fails with the log tail and it is restarted.
  server        parametrized over both, ids "threadgres" and "pg15"
  server_scram  parametrized, password (SCRAM-SHA-256) auth: "threadgres" is a
                second threadgres started with --password, "pg15" is role
                scram_user on the same cluster
  tg_scram, pg_scram   one side of server_scram

Servers start lazily, so `pytest -k pg15` never builds or starts threadgres.
Restrict a test to one side: @pytest.mark.parametrize("server", ["pg15"], indirect=True)
Reuse from another directory (e.g. tests/clients/conftest.py):

    import sys, pathlib
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "py"))
    from tg_fixtures import *  # noqa: F401,F403  (fixtures and hooks)

See servers.py for the environment variables (THREADGRES_BIN, THREADGRES_ADDR, PG15_ADDR, ...).
"""

from __future__ import annotations

import atexit
import os
import re

import pytest

import servers

__all__ = [
    "tmp_root", "tg_process", "tg_scram_process", "pg_cluster",
    "pg", "tg", "server", "pg_scram", "tg_scram", "server_scram",
    "pytest_runtest_makereport",
    "tg_dedicated",
]

SERVER_IDS = ["threadgres", "pg15"]


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


@pytest.fixture(scope="session")
def tmp_root():
    path = servers.make_tmpdir("threadgres-tests-")
    yield path
    servers.remove_tmpdir(path)


def _started(proc: servers.ServerProcess):
    atexit.register(proc.stop)
    proc.start()
    return proc


@pytest.fixture(scope="session")
def pg_cluster(tmp_root):
    if os.environ.get("PG15_ADDR"):
        proc = servers.ExternalServer("pg15", os.environ["PG15_ADDR"])
    else:
        proc = servers.Pg15Cluster(tmp_root / "pg15")
    _started(proc)
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def tg_process(tmp_root):
    if os.environ.get("THREADGRES_ADDR"):
        proc = servers.ExternalServer("threadgres", os.environ["THREADGRES_ADDR"])
    else:
        proc = servers.ThreadgresProcess(servers.threadgres_binary(), tmp_root / "threadgres")
    _started(proc)
    yield proc
    proc.stop()


@pytest.fixture
def tg_dedicated(tmp_root, request):
    """Dedicated threadgres servers for one test, stopped at its end:
    tg_dedicated(*args, name=..., workdir=...) -> ThreadgresProcess. Each gets a work folder
    (and so a data directory) of its own, named after the test, since a data directory now
    keeps what a server wrote."""
    procs = []
    test = re.sub(r"[^A-Za-z0-9_.-]", "-", request.node.name)

    def start(*args, name="threadgres-dedicated", workdir=None):
        p = servers.ThreadgresProcess(servers.threadgres_binary(),
                                      workdir or tmp_root / f"{test}-{len(procs)}",
                                      extra_args=args, name=name)
        procs.append(p)
        p.start()
        return p
    yield start
    for p in procs:
        p.stop()


@pytest.fixture(scope="session")
def tg_scram_process(tmp_root):
    proc = servers.ThreadgresProcess(
        servers.threadgres_binary(), tmp_root / "threadgres-scram", name="threadgres-scram",
        password=servers.SCRAM_PASSWORD,
    )
    _started(proc)
    yield proc
    proc.stop()


def _watch(request, proc: servers.ServerProcess):
    """Yield proc.info; afterwards fail the test if the server died, attach its log on failure."""
    if not proc.alive():
        proc.restart()
    offset = proc.log_size()
    yield proc.info
    died = not proc.alive()
    rep = getattr(request.node, "rep_call", None)
    log = proc.log_since(offset)
    callspec = getattr(request.node, "callspec", None)
    side = None
    if callspec is not None:
        side = callspec.params.get("server") or callspec.params.get("server_scram")
    relevant = side is None or proc.name.startswith(side)  # PG's log is noise when threadgres is tested
    if log and (died or (relevant and rep is not None and rep.failed)):
        request.node.add_report_section("teardown", f"{proc.name} log", log)
    if died:
        rc = proc.returncode()
        try:
            proc.restart()
        finally:
            pytest.fail(f"{proc.name} exited with status {rc} during this test; log:\n{log[-3000:]}", pytrace=False)


@pytest.fixture
def pg(request, pg_cluster):
    yield from _watch(request, pg_cluster)


@pytest.fixture
def tg(request, tg_process):
    yield from _watch(request, tg_process)


@pytest.fixture
def tg_scram(request, tg_scram_process):
    yield from _watch(request, tg_scram_process)


@pytest.fixture
def pg_scram(pg, pg_cluster):
    if isinstance(pg_cluster, servers.Pg15Cluster):
        return pg_cluster.scram_info()
    pytest.skip("PG15_ADDR given: no SCRAM role available")


@pytest.fixture(params=SERVER_IDS)
def server(request):
    """The server under test: ids "threadgres" (tg) and "pg15" (pg)."""
    return request.getfixturevalue({"threadgres": "tg", "pg15": "pg"}[request.param])


@pytest.fixture(params=SERVER_IDS)
def server_scram(request):
    return request.getfixturevalue({"threadgres": "tg_scram", "pg15": "pg_scram"}[request.param])
