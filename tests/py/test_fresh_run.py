"""The README's run command on a fresh machine: `bash scripts/run.sh` must build threadgres from
nothing and start a server that answers `SELECT 1`.

The test runs the script the way a user with only Rust installed would: a clean environment
(`env -i` with only PATH, HOME, CARGO_HOME and RUSTUP_HOME), a fresh, empty CARGO_TARGET_DIR (so
every crate is compiled again, pg_query's build script included: bindgen with libclang, the C
library), and a free port passed through the script to the server. It then runs the script a
second time with `apt-get` and `sudo` replaced by traps, which must not be called: the script is
idempotent.

With THREADGRES_TEST_FRESH_PACKAGES=1 (set by .ci/run), when we are root and apt-get is there,
the build-only packages (BUILD_PACKAGES of scripts/lib.sh, and libclang's shared library, so that
the build really cannot find it) are removed first, and the script has to install them again. They
are installed again at the end whatever happened, with the automatic/manual marks they had.
PostgreSQL's packages are never touched. Without it that removal is skipped (the rest still runs).

The fresh release build takes several minutes on a small machine (4 to 6 on 2 cores); it runs
under `nice`. Its target directory (over a GiB) is removed afterwards.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

import pgwire
import servers
from clientutil import pg_tool

REPO = servers.REPO_ROOT
BUILD_TIMEOUT = 20 * 60
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# What the removal may take with it: the build packages and their own dependencies.
REMOVABLE = re.compile(r"^(clang|libclang|protobuf-compiler|libprotoc|libprotobuf)")


def _build_packages() -> list[str]:
    out = subprocess.run(["bash", "-c", '. scripts/lib.sh && printf "%s\\n" "${BUILD_PACKAGES[@]}"'],
                         cwd=REPO, capture_output=True, text=True, check=True).stdout
    return out.split()


def _installed(pkg: str) -> bool:
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True, text=True)
    return r.returncode == 0 and r.stdout.endswith(" ok installed")


def _installed_matching(pattern: str) -> list[str]:
    r = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Status}\\n", pattern],
                       capture_output=True, text=True)
    return [line.split()[0] for line in r.stdout.splitlines() if line.endswith(" ok installed")]


def _apt(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    return subprocess.run(["apt-get", "-o", "DPkg::Lock::Timeout=300", *args], env=env,
                          capture_output=True, text=True, timeout=timeout)


def _libclang_files() -> list[str]:
    """Shared libraries of libclang where bindgen (clang-sys) looks for one."""
    found = []
    for d in ["/usr/lib", "/usr/lib64", "/usr/local/lib", "/usr/lib/x86_64-linux-gnu",
              "/usr/lib/aarch64-linux-gnu", *map(str, Path("/usr/lib").glob("llvm-*/lib"))]:
        found += [str(f) for f in Path(d).glob("libclang*.so*") if "libclang-cpp" not in f.name]
    return found


class _PackageRemoval:
    """Removes the build packages and libclang's shared library; restore() installs them again."""

    def __init__(self, packages: list[str]):
        # libclang1-NN holds the shared library; removing it takes clang-NN and libclang-NN-dev along
        self.targets = packages + _installed_matching("libclang1-*")
        self.removed: list[str] = []
        self.auto: set[str] = set()

    def remove(self) -> None:
        sim = _apt("-s", "remove", *self.targets)
        assert sim.returncode == 0, f"apt-get -s remove failed:\n{sim.stdout}\n{sim.stderr}"
        plan = re.findall(r"^Remv (\S+)", sim.stdout, re.M)
        others = [p for p in plan if not REMOVABLE.match(p)]
        assert not others, (f"removing {self.targets} would also remove {others}; "
                            "unset THREADGRES_TEST_FRESH_PACKAGES on this machine")
        self.auto = set(subprocess.run(["apt-mark", "showauto", *plan], capture_output=True,
                                       text=True).stdout.split())
        self.removed = plan
        r = _apt("remove", "-y", *self.targets)
        assert r.returncode == 0, f"apt-get remove failed:\n{r.stdout}\n{r.stderr}"

    def restore(self) -> None:
        """Installs whatever of the removed packages is missing, with its old auto/manual mark."""
        missing = [p for p in self.removed if not _installed(p)]
        if missing:
            r = _apt("install", "-y", "--no-install-recommends", *missing)
            if r.returncode != 0:
                _apt("update")
                r = _apt("install", "-y", "--no-install-recommends", *missing)
            assert r.returncode == 0, f"could not install {missing} again:\n{r.stdout}\n{r.stderr}"
        auto = [p for p in self.removed if p in self.auto]
        if auto:
            subprocess.run(["apt-mark", "auto", *auto], capture_output=True, check=True)


def _clean_env(path: str, target_dir: Path) -> list[str]:
    home = os.environ.get("HOME") or str(Path.home())
    cargo_home = os.environ.get("CARGO_HOME") or os.path.join(home, ".cargo")
    rustup_home = os.environ.get("RUSTUP_HOME") or os.path.join(home, ".rustup")
    return ["env", "-i", f"PATH={path}", f"HOME={home}", f"CARGO_HOME={cargo_home}",
            f"RUSTUP_HOME={rustup_home}", f"CARGO_TARGET_DIR={target_dir}"]


def _tail(path: Path, n: int = 6000) -> str:
    data = path.read_bytes() if path.exists() else b""
    return data[-n:].decode("utf-8", "replace")


@pytest.mark.timeout(BUILD_TIMEOUT + 600)
def test_run_script_builds_from_scratch_and_serves():
    cargo = shutil.which("cargo") or os.path.join(os.environ.get("CARGO_HOME", str(Path.home() / ".cargo")),
                                                  "bin", "cargo")
    if not os.path.exists(cargo):
        pytest.skip("cargo not found")
    path = f"{os.path.dirname(cargo)}:{SYSTEM_PATH}"
    psql = pg_tool("psql")

    removal = None
    fresh_packages = (os.environ.get("THREADGRES_TEST_FRESH_PACKAGES") == "1" and os.geteuid() == 0
                      and shutil.which("apt-get") and shutil.which("dpkg-query"))
    packages = _build_packages() if shutil.which("dpkg-query") else []
    tmp = Path(tempfile.mkdtemp(prefix="tg-fresh-run-"))
    target = tmp / "target"
    log = tmp / "run.log"
    proc = None
    try:
        if fresh_packages:
            removal = _PackageRemoval(packages)
            removal.remove()
            still = [p for p in packages if _installed(p)]
            assert not still, f"still installed after apt-get remove: {still}"
            assert not _libclang_files(), f"libclang still there after the removal: {_libclang_files()}"

        port = servers.free_port()
        started = time.monotonic()
        with open(log, "wb") as out:
            proc = subprocess.Popen([*_clean_env(path, target), "nice", "-n", "10",
                                     "bash", "scripts/run.sh", "--port", str(port),
                                     "--data-dir", str(tmp / "data")],
                                    cwd=REPO, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        info = servers.ServerInfo("threadgres", servers.HOST, port)
        deadline = started + BUILD_TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail(f"scripts/run.sh exited with status {proc.returncode} before the server "
                            f"accepted connections:\n{_tail(log)}", pytrace=False)
            if time.monotonic() > deadline:
                pytest.fail(f"no server on port {port} within {BUILD_TIMEOUT}s:\n{_tail(log)}",
                            pytrace=False)
            try:
                info.connect_raw(timeout=5).close()
                break
            except (OSError, pgwire.PgWireError):
                time.sleep(1)
        build_s = time.monotonic() - started
        print(f"scripts/run.sh: built from scratch and accepting connections after {build_s:.0f}s")

        text = log.read_text("utf-8", "replace")
        if removal is not None:
            assert "==> installing" in text, text[-6000:]
            still_missing = [p for p in packages if not _installed(p)]
            assert not still_missing, f"scripts/run.sh did not install {still_missing}:\n{text[-6000:]}"
        else:
            assert "==> installing" not in text, text[-6000:]
        # cargo exec's the server: the process we started is the freshly built binary
        exe = os.readlink(f"/proc/{proc.pid}/exe")
        assert exe == str(target / "release" / "threadgres"), exe
        assert f"psql -h 127.0.0.1 -p {port} -U postgres" in text, text[-6000:]

        r = subprocess.run([psql, "-X", "-At", "-c", "SELECT 1"], env=info.env(), capture_output=True,
                           text=True, timeout=60)
        assert (r.returncode, r.stdout, r.stderr) == (0, "1\n", ""), r

        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server did not exit within 30s of SIGTERM:\n{_tail(log)}", pytrace=False)
        assert rc == 0, f"exit status {rc} after SIGTERM:\n{_tail(log)}"

        # A second run finds everything in place: no apt-get, nothing printed by the script, no
        # rebuild; the arguments still reach the server (--help).
        traps = tmp / "traps"
        traps.mkdir()
        called = tmp / "apt-called"
        for name in ("apt-get", "apt", "sudo"):
            t = traps / name
            t.write_text(f'#!/bin/sh\necho "{name} $*" >> {called}\nexit 97\n')
            t.chmod(0o755)
        r = subprocess.run([*_clean_env(f"{traps}:{path}", target), "bash", "scripts/run.sh", "--help"],
                           cwd=REPO, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r
        assert not called.exists(), f"second run called {called.read_text()}"
        assert "--port" in r.stdout, r.stdout
        assert "==>" not in r.stderr and "Compiling" not in r.stderr, r.stderr
    finally:
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(30)
        shutil.rmtree(tmp, ignore_errors=True)
        if removal is not None:
            removal.restore()
            assert all(_installed(p) for p in packages), "build packages not installed again"
