"""Benchmark 13: sysbench's OLTP scripts (issue 30), run by bench/harness.py.

sysbench is Debian's package (1.0.20 on bookworm, built with its pgsql driver), unmodified; it
is installed with apt-get the first time it is missing. For each server the database
`sbtest` is made afresh and filled with `sysbench oltp_common prepare` (timed: the `prepare`
point), then `oltp_read_write` and `oltp_point_select` run at each thread count for the mode's
duration against the same tables, and `sysbench oltp_common cleanup` (timed) drops them at the
end. A run point reports transactions and queries per second, the average and 95th percentile
latency, and the errors sysbench ignored (its pgsql driver retries a transaction that fails
with a deadlock, a unique violation or a serialization failure, and counts it).
"""
import os
import re
import shutil
import subprocess
import time

from client_driver import ClientDriver

DATABASE = "sbtest"
SCRIPTS = ("oltp_read_write", "oltp_point_select")

# Metrics shown in the report: key -> (label, unit, higher_is_better)
METRICS = {
    "tps": ("transactions/s", "tx/s", True),
    "qps": ("queries/s", "1/s", True),
    "latency_avg_ms": ("latency avg", "ms", False),
    "latency_p95_ms": ("latency p95", "ms", False),
    "ignored_errors": ("transactions retried (deadlock, unique violation, 40001)", "", False),
    "load_s": ("prepare time (tables filled, indexes built)", "s", False),
    "cleanup_s": ("cleanup time (tables dropped)", "s", False),
}
TABLE_METRICS = ["tps", "qps", "latency_avg_ms", "latency_p95_ms", "ignored_errors",
                 "load_s", "cleanup_s"]


NOTES = ("`sysbench SCRIPT --db-driver=pgsql --tables=N --table-size=R --threads=T --time=D "
         "run` (Debian's sysbench, unmodified; its default `--db-ps-mode=auto`: server-side "
         "prepared statements) over the tables that `sysbench oltp_common prepare` filled in a "
         "fresh database `sbtest` (N and R in the prepare point's name); `oltp_read_write` and "
         "`oltp_point_select` run one after the other on the same tables, and `cleanup` drops "
         "them at the end. Both servers commit durably (PostgreSQL's defaults: "
         "`synchronous_commit = on`, `fsync = on`).")


def ensure_installed(log):
    """Installs Debian's sysbench if it is not on PATH; returns an error text or None."""
    if shutil.which("sysbench"):
        return None
    if os.geteuid() != 0:
        return "sysbench is missing and this is not root: apt-get install sysbench"
    log("== installing sysbench (apt-get install sysbench)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        r = subprocess.run(["apt-get", "install", "-y", "sysbench"], env=env,
                           capture_output=True, text=True, timeout=900)
        if r.returncode != 0:
            # The package lists may be missing or stale (a fresh container): update once.
            subprocess.run(["apt-get", "update"], env=env, capture_output=True, text=True,
                           timeout=900)
            r = subprocess.run(["apt-get", "install", "-y", "sysbench"], env=env,
                               capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"apt-get install sysbench failed: {e}"
    if r.returncode != 0 or not shutil.which("sysbench"):
        return f"apt-get install sysbench failed: {(r.stderr or r.stdout).strip()[-400:]}"
    return None


def command(srv, script, sub, cfg, threads, extra=()):
    return ["sysbench", script, "--db-driver=pgsql", "--pgsql-host=127.0.0.1",
            f"--pgsql-port={srv.port}", "--pgsql-user=postgres", f"--pgsql-db={DATABASE}",
            f"--tables={cfg['sb_tables']}", f"--table-size={cfg['sb_table_size']}",
            f"--threads={threads}", *extra, sub]


def number(pattern, text):
    m = re.search(pattern, text, re.M)
    return float(m.group(1)) if m else None


def parse_run(text):
    """Metrics from `sysbench ... run`'s report (None without one)."""
    metrics = {
        "tps": number(r"^\s*transactions:\s+\d+\s+\(([\d.]+) per sec\.\)", text),
        "qps": number(r"^\s*queries:\s+\d+\s+\(([\d.]+) per sec\.\)", text),
        "ignored_errors": number(r"^\s*ignored errors:\s+(\d+)", text),
        "latency_avg_ms": number(r"^\s*avg:\s+([\d.]+)", text),
        "latency_p95_ms": number(r"^\s*95th percentile:\s+([\d.]+)", text),
    }
    if metrics["tps"] is None or metrics["latency_avg_ms"] is None:
        return None
    return {k: v for k, v in metrics.items() if v is not None}


def failure(r):
    """sysbench reports SQL errors as FATAL lines with the statement and the server's text."""
    lines = [ln for ln in (r.stdout + r.stderr).splitlines() if "FATAL" in ln]
    return "; ".join(lines[:4]) or (r.stderr or r.stdout).strip()[-400:]


class Sysbench(ClientDriver):
    """The points of benchmark 13 for one harness Suite."""

    def __init__(self, cfg, pg_bin, point_cls, outcome_cls, run_cmd, log):
        self.cfg = cfg
        self.pg_bin = pg_bin
        self.Point = point_cls
        self.Outcome = outcome_cls
        self.run_cmd = run_cmd
        self.log = log
        self.loaded = {}  # server name -> process id of the server the tables were made in
        self.install_error = None

    def prepare(self, srv):
        """Makes the database afresh and fills it; (seconds, None) or (None, error)."""
        self.loaded.pop(srv.name, None)
        self.psql(srv, f"DROP DATABASE IF EXISTS {DATABASE}")
        self.psql(srv, f"CREATE DATABASE {DATABASE}")
        # sysbench's prepare gives each thread its own tables.
        threads = max(1, min(self.cfg["sb_tables"], os.cpu_count() or 1))
        t = time.time()
        r = self.run_cmd(command(srv, "oltp_common", "prepare", self.cfg, threads),
                         timeout=3600)
        took = time.time() - t
        if r.returncode != 0 or "FATAL" in r.stdout + r.stderr:
            return None, f"prepare failed: {failure(r)}"
        self.loaded[srv.name] = self.key(srv)
        return took, None

    def ready(self, srv):
        if self.install_error:
            return self.install_error
        if self.loaded.get(srv.name) == self.key(srv):
            return None
        _, err = self.prepare(srv)
        return err

    def measure_prepare(self, srv):
        if self.install_error:
            return self.Outcome("error", error=self.install_error)
        took, err = self.prepare(srv)
        if err:
            return self.Outcome("error", error=err)
        return self.Outcome("ok", metrics={"load_s": round(took, 2)})

    def measure_run(self, srv, script, threads):
        err = self.ready(srv)
        if err:
            return self.Outcome("error", error=err)
        seconds = self.cfg["sb_T"]
        cmd = command(srv, script, "run", self.cfg, threads,
                      [f"--time={seconds}", "--report-interval=0"])
        r = self.run_cmd(cmd, timeout=seconds + 300)
        metrics = parse_run(r.stdout)
        if r.returncode != 0 or metrics is None:
            return self.Outcome("error", error=f"exit {r.returncode}: {failure(r)}")
        return self.Outcome("ok", metrics=metrics,
                            detail={"command": " ".join(cmd), "output": r.stdout[-4000:]})

    def measure_cleanup(self, srv):
        err = self.ready(srv)
        if err:
            return self.Outcome("error", error=err)
        t = time.time()
        r = self.run_cmd(command(srv, "oltp_common", "cleanup", self.cfg, 1), timeout=600)
        took = round(time.time() - t, 2)
        # The tables are gone: a later point makes them again.
        self.loaded.pop(srv.name, None)
        if r.returncode != 0 or "FATAL" in r.stdout + r.stderr:
            return self.Outcome("error", error=f"cleanup failed: {failure(r)}")
        return self.Outcome("ok", metrics={"cleanup_s": took})

    def points(self):
        self.install_error = ensure_installed(self.log)
        tables, size = self.cfg["sb_tables"], self.cfg["sb_table_size"]
        pts = [self.Point("sysbench", f"prepare tables={tables} table-size={size}",
                          dict(tables=tables, table_size=size), self.measure_prepare,
                          series="prepare")]
        for script in SCRIPTS:
            for t in self.cfg["sb_threads"]:
                pts.append(self.Point("sysbench", f"{script} threads={t}",
                                      dict(script=script, threads=t, seconds=self.cfg["sb_T"]),
                                      lambda srv, s=script, t=t: self.measure_run(srv, s, t),
                                      x=t, series=script))
        pts.append(self.Point("sysbench", "cleanup", {}, self.measure_cleanup,
                              series="cleanup"))
        return pts
