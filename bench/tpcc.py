"""Benchmark 10: TPC-C through go-tpc (issue 30), run by bench/harness.py.

go-tpc (github.com/pingcap/go-tpc, the version below, unmodified) is installed with
`go install` into bench/.go on first use. For each number of warehouses the database `tpcc`
is made afresh on the server and loaded with `go-tpc tpcc prepare --no-check`, then every
thread count runs `go-tpc tpcc run` for the mode's duration, and `go-tpc tpcc check` closes the
series: its consistency conditions must hold after the runs. A point reports tpmC (new-order
transactions per minute), the transactions of all types per minute, the average and p95
latency of each type, and the errors go-tpc counted.

The load and the check are points of their own (the load's time is a metric; the check is
timed and passes or fails), so a run shows them beside the throughput.
"""
import os
import re
import subprocess
import time

from client_driver import ClientDriver

GO_TPC_PACKAGE = "github.com/pingcap/go-tpc/cmd/go-tpc"
GO_TPC_VERSION = "v1.0.12"
TYPES = ("NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL")
DATABASE = "tpcc"

# Metrics shown in the report: key -> (label, unit, higher_is_better)
METRICS = {
    "tpmC": ("tpmC (new orders per minute)", "1/min", True),
    "tpm_total": ("transactions per minute, all types", "1/min", True),
    **{f"{t.lower()}_p95_ms": (f"{t} p95", "ms", False) for t in TYPES},
    **{f"{t.lower()}_avg_ms": (f"{t} avg", "ms", False) for t in TYPES},
    "errors": ("transactions that failed", "", False),
    "load_s": ("load time (prepare --no-check)", "s", False),
    "check_s": ("check time", "s", False),
    "check_passed": ("check passed (1 = yes)", "", True),
}
NOTES = ("`go-tpc tpcc run -d postgres --warehouses W -T threads --time D` against a database "
         "loaded by `go-tpc tpcc prepare --no-check` (go-tpc " + GO_TPC_VERSION + ", "
         "unmodified, `sslmode=disable`); `check` runs go-tpc's consistency conditions after "
         "the runs at each warehouse count. Both servers commit durably (PostgreSQL's "
         "defaults: `synchronous_commit = on`, `fsync = on`).")


def binary(bench_dir):
    return os.path.join(bench_dir, ".go", "bin", "go-tpc")


def ensure_installed(bench_dir, log):
    """Installs go-tpc into bench/.go if it is not there; returns an error text or None."""
    path = binary(bench_dir)
    if os.path.exists(path):
        return None
    gopath = os.path.join(bench_dir, ".go")
    env = dict(os.environ, GOPATH=gopath, GOFLAGS="-mod=mod")
    log(f"== installing go-tpc {GO_TPC_VERSION} into {gopath}")
    try:
        r = subprocess.run(["go", "install", f"{GO_TPC_PACKAGE}@{GO_TPC_VERSION}"], env=env,
                           capture_output=True, text=True, timeout=1200)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"go install failed: {e}"
    if r.returncode != 0 or not os.path.exists(path):
        return f"go install failed: {(r.stderr or r.stdout).strip()[-400:]}"
    return None


def command(bench_dir, srv, sub, warehouses, threads, extra=()):
    return [binary(bench_dir), "tpcc", sub, "-d", "postgres", "-H", "127.0.0.1",
            "-P", str(srv.port), "-U", "postgres", "-D", DATABASE,
            "--warehouses", str(warehouses), "-T", str(threads),
            "--conn-params", "sslmode=disable", *extra]


SUMMARY = re.compile(r"^\[Summary\] (\w+) - .*?Count: (\d+), TPM: ([\d.]+), .*?Avg\(ms\): "
                     r"([\d.]+), .*?95th\(ms\): ([\d.]+),", re.M)
TPMC = re.compile(r"^tpmC: ([\d.]+), tpmTotal: ([\d.]+)", re.M)


def parse_run(text):
    """Metrics from `go-tpc tpcc run`'s final summary (None without one)."""
    m = TPMC.search(text)
    if not m:
        return None
    metrics = {"tpmC": float(m.group(1)), "tpm_total": float(m.group(2)), "errors": 0}
    for s in SUMMARY.finditer(text):
        name, count = s.group(1), int(s.group(2))
        if name.endswith("_ERR"):
            metrics["errors"] += count
        elif name in TYPES:
            metrics[f"{name.lower()}_avg_ms"] = float(s.group(4))
            metrics[f"{name.lower()}_p95_ms"] = float(s.group(5))
    return metrics


class Tpcc(ClientDriver):
    """The points of benchmark 10 for one harness Suite."""

    def __init__(self, suite, bench_dir, pg_bin, point_cls, outcome_cls, run_cmd, log):
        self.suite = suite
        self.bench_dir = bench_dir
        self.pg_bin = pg_bin
        self.Point = point_cls
        self.Outcome = outcome_cls
        self.run_cmd = run_cmd
        self.log = log
        self.loaded = {}  # server name -> (process id, warehouses) of the loaded database
        self.install_error = None

    def load(self, srv, warehouses):
        """Makes the database afresh and loads it; (seconds, None) or (None, error)."""
        self.psql(srv, f"DROP DATABASE IF EXISTS {DATABASE}")
        self.psql(srv, f"CREATE DATABASE {DATABASE}")
        t = time.time()
        r = self.run_cmd(command(self.bench_dir, srv, "prepare", warehouses, 2, ["--no-check"]),
                         timeout=3600)
        took = time.time() - t
        if r.returncode != 0 or "Finished" not in r.stdout:
            self.loaded.pop(srv.name, None)
            return None, f"prepare failed: {(r.stderr or r.stdout).strip()[-400:]}"
        self.loaded[srv.name] = (self.key(srv), warehouses)
        return took, None

    def ready(self, srv, warehouses):
        if self.install_error:
            return self.install_error
        if self.loaded.get(srv.name) == (self.key(srv), warehouses):
            return None
        _, err = self.load(srv, warehouses)
        return err

    def measure_load(self, srv, warehouses):
        if self.install_error:
            return self.Outcome("error", error=self.install_error)
        took, err = self.load(srv, warehouses)
        if err:
            return self.Outcome("error", error=err)
        return self.Outcome("ok", metrics={"load_s": round(took, 2)})

    def measure_run(self, srv, warehouses, threads, seconds):
        err = self.ready(srv, warehouses)
        if err:
            return self.Outcome("error", error=err)
        cmd = command(self.bench_dir, srv, "run", warehouses, threads,
                      ["--time", f"{seconds}s", "--interval", f"{seconds * 10}s"])
        r = self.run_cmd(cmd, timeout=seconds + 300)
        metrics = parse_run(r.stdout)
        if metrics is None:
            return self.Outcome("error", error=f"no summary (exit {r.returncode}): "
                                f"{(r.stderr or r.stdout).strip()[-400:]}")
        return self.Outcome("ok", metrics=metrics,
                            detail={"command": " ".join(cmd), "output": r.stdout[-4000:]})

    def measure_check(self, srv, warehouses):
        err = self.ready(srv, warehouses)
        if err:
            return self.Outcome("error", error=err)
        t = time.time()
        r = self.run_cmd(command(self.bench_dir, srv, "check", warehouses, 1), timeout=7200)
        took = round(time.time() - t, 2)
        passed = r.returncode == 0 and "Finished" in r.stdout and "failed" not in r.stdout
        metrics = {"check_s": took, "check_passed": 1 if passed else 0}
        if not passed:
            return self.Outcome("error", metrics=metrics,
                                error=f"check failed: {(r.stderr or r.stdout).strip()[-400:]}")
        return self.Outcome("ok", metrics=metrics)

    def points(self, cfg):
        self.install_error = ensure_installed(self.bench_dir, self.log)
        pts = []
        seconds = cfg["tpcc_T"]
        for w in cfg["tpcc_warehouses"]:
            pts.append(self.Point("tpcc", f"load w={w}", dict(warehouses=w),
                                  lambda srv, w=w: self.measure_load(srv, w), x=w,
                                  series="load"))
            for t in cfg["tpcc_threads"]:
                pts.append(self.Point("tpcc", f"w={w} threads={t}",
                                      dict(warehouses=w, threads=t, seconds=seconds),
                                      lambda srv, w=w, t=t: self.measure_run(srv, w, t, seconds),
                                      x=t, series=f"w={w}"))
            pts.append(self.Point("tpcc", f"check w={w}", dict(warehouses=w),
                                  lambda srv, w=w: self.measure_check(srv, w), x=w,
                                  series="check"))
        return pts
