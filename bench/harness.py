#!/usr/bin/env python3
"""Benchmark harness of threadgres (started by bench/run.sh; see bench/README.md).

Runs the benchmarks of /work/shared/spec/benchmarks.md against threadgres and PostgreSQL 15,
alternating the two servers for every repetition of every point, and writes raw.csv,
raw.jsonl, report.md and PNG plots into the run directory.

Nothing here asserts on timings: a point that fails is recorded with its error and the run
goes on.
"""

import argparse
import csv
import datetime
import json
import math
import os
import platform
import re
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import gin
import lockwake
import sysbench
import tpcc
import trgm

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
CLIENT = os.path.join(BENCH_DIR, "client", "target", "release", "tgbench")
SCRIPTS = os.path.join(BENCH_DIR, "pgbench")
PG_BIN = "/usr/lib/postgresql/15/bin"
PG_USER = "tgbench"

TG = "threadgres"
PG = "postgresql"
SERVERS = (TG, PG)
LABEL = {TG: "threadgres", PG: "PostgreSQL 15"}

CORES = os.cpu_count() or 1

# --------------------------------------------------------------------------------------------
# Modes: durations, repetitions and the points of every benchmark.
# --------------------------------------------------------------------------------------------

PGB_SCRIPTS = [
    "listen_unique",
    "listen_common",
    "listen_unlisten_unique",
    "listen_unlisten_common",
    "listen_notify_unique",
    "listen_notify_common",
]

MODES = {
    # Every point of benchmarks.md, 3 repetitions; durations chosen so that a run takes about
    # 50 minutes on the 2-core machine (a throughput settles within a second there).
    "full": dict(
        reps=3,
        # Points that take a few seconds each (pgbench up to 32 clients, ping-pong) are
        # repeated more: their repetitions spread by 10-20 % on this machine (a repetition
        # that starts badly placed stays slow), and the median of 5 is not moved by one or
        # two such outliers, where the median of 3 is moved by one.
        reps_short=5,
        pgb_T=2, pgb_t=None, pgb_clients=[1, 2, 4, 8, 16, 32, 1000],
        dur=4.0, warm=1.0,
        pingpong_extra=[0, 10, 100, 1000],
        multicast=[(32, 2), (16, 4), (8, 8), (4, 16)],
        wide_N=[1, 10, 100] + list(range(1000, 10001, 1000)), wide_iters=7,
        wide_L=[1, 10, 50, 100, 200], wide_I=[0, 50, 100, 200, 300, 400, 500],
        lat_dur=8.0, lat_warm=1.0,
        writers_C=[1, 2, 4, 8, 16, 32, 64],
        trgn_clients=[1, 8, 32], trgn_T=5,
        idle_K=[1000, 10000, 100000], connect_T=4, connect_t=None,
        # tables (benchmarks 8-9): pgbench -i at each scale of tbl_init_scales (the largest
        # one last, it also gives the memory target); the runs at tbl_scale
        tbl_init_scales=[10, 100], tbl_scale=10, tbl_T=10, tbl_mixed_T=10,
        tbl_S_clients=[10, 100, 1000], tbl_write_clients=[1, 8, 16, 64],
        tpcc_warehouses=[1, 2, 4], tpcc_threads=[1, 4, 16, 64], tpcc_T=30,
        sb_tables=4, sb_table_size=100000, sb_threads=[1, 4, 16, 64], sb_T=30,
        lw_rounds=500,
        gin_rows=1_000_000, gin_T=20, gin_clients=[1, 8],
        trgm_rows=1_000_000, trgm_T=20, trgm_clients=[1, 8],
    ),
    "quick": dict(
        reps=1,
        reps_short=1,
        pgb_T=1, pgb_t=None, pgb_clients=[1, 8, 1000],
        dur=2.0, warm=0.5,
        pingpong_extra=[0, 10, 100, 1000],
        multicast=[(32, 2), (16, 4), (8, 8), (4, 16)],
        wide_N=[1, 100, 1000, 5000, 10000], wide_iters=3,
        wide_L=[1, 10, 50, 200], wide_I=[0, 100, 500],
        lat_dur=3.0, lat_warm=0.5,
        writers_C=[1, 4, 16, 64],
        trgn_clients=[1, 8], trgn_T=3,
        idle_K=[1000], connect_T=2, connect_t=None,
        tbl_init_scales=[10], tbl_scale=10, tbl_T=5, tbl_mixed_T=10,
        tbl_S_clients=[10, 100, 1000], tbl_write_clients=[1, 8, 16, 64],
        tpcc_warehouses=[1], tpcc_threads=[1, 4, 16], tpcc_T=20,
        sb_tables=4, sb_table_size=10000, sb_threads=[1, 4, 16, 64], sb_T=10,
        lw_rounds=200,
        gin_rows=1_000_000, gin_T=10, gin_clients=[1, 8],
        trgm_rows=1_000_000, trgm_T=10, trgm_clients=[1, 8],
    ),
    "smoke": dict(
        reps=1,
        reps_short=1,
        pgb_T=None, pgb_t=50, pgb_clients=[1, 4],
        dur=0.3, warm=0.1,
        pingpong_extra=[0, 10],
        multicast=[(32, 2), (4, 16)],
        wide_N=[1, 100, 1000], wide_iters=2,
        wide_L=[1, 10], wide_I=[0, 50],
        lat_dur=0.5, lat_warm=0.1,
        writers_C=[1, 8],
        trgn_clients=[1, 8], trgn_T=1,
        idle_K=[100], connect_T=None, connect_t=50,
        tbl_init_scales=[1], tbl_scale=1, tbl_T=3, tbl_mixed_T=5,
        tbl_S_clients=[10, 100], tbl_write_clients=[1, 8],
        tpcc_warehouses=[1], tpcc_threads=[4], tpcc_T=3,
        sb_tables=1, sb_table_size=1000, sb_threads=[4], sb_T=2,
        lw_rounds=20,
        gin_rows=10_000, gin_T=2, gin_clients=[1],
        trgm_rows=10_000, trgm_T=2, trgm_clients=[1],
    ),
}

BENCHES = [
    # (number, name, title, implemented)
    (1, "pgbench", "pgbench LISTEN/NOTIFY scripts (seed 000)", True),
    (2, "pingpong", "Ping-pong with idle listeners (seed 000)", True),
    (3, "multicast", "Multicast ping-pong (seed 000)", True),
    (4, "wide-notify", "Commit time of a wide NOTIFY (seed 001)", True),
    (5, "latency", "Notification latency distribution (seed 003)", True),
    (6, "writers", "Notifying writers with durable commits", True),
    (7, "idle", "Idle connections (seed 002)", True),
    (8, "tables", "Tables: pgbench -i, select-only at many connections (seed 002), "
                  "tpcb-like and simple-update (seed 004), mixed load (benchmarks 8-9)", True),
    (10, "tpcc", "TPC-C through go-tpc: new-order transactions per minute (issue 30)", True),
    (11, "manycore", "Many-core micro-benchmarks", False),
    (12, "trigger-notify", "Notifications sent by a trigger and by the statement (issue 32)",
     True),
    (13, "sysbench", "sysbench oltp_read_write and oltp_point_select (issue 30)", True),
    (14, "lock-wake", "A row lock's waiter runs again after the COMMIT, alone and beside "
                      "other work (issue 30)", True),
    (15, "gin", "GIN jsonb containment at 1 M rows (issue 31)", True),
    (16, "trgm", "Trigram search through gin_trgm_ops and a partial-index lookup at 1 M rows "
                 "(issue 31)", True),
]
# Other names of a benchmark for --only: 9 and the spec's names of benchmarks 8 and 9.
BENCH_ALIASES = {"9": "tables", "select-only": "tables", "tpcb": "tables"}
PLACEHOLDER_REASON = {
    "manycore": "placeholder: micro-benchmarks of the WAL reservation, commit-number "
                "publication and read-biased lock live with the server code",
}

# Metrics shown per benchmark: key -> (label, unit, higher_is_better)
METRICS = {
    "pgbench": {"tps": ("TPS", "tx/s", True), "latency_ms": ("latency avg", "ms", False)},
    "pingpong": {"rt_per_s": ("round trips/s", "1/s", True),
                 "rtt_ms_p50": ("RTT p50", "ms", False)},
    "multicast": {"rt_per_s": ("round trips/s", "1/s", True),
                  "rtt_ms_p50": ("RTT p50", "ms", False)},
    "wide-notify": {"commit_ms": ("COMMIT time", "ms", False),
                    "deliver_ms": ("time until all received", "ms", False),
                    "first_ms": ("time until the first received", "ms", False)},
    "latency": {"sent_per_s": ("sent/s", "1/s", True),
                "received_per_s": ("received/s", "1/s", True),
                "lost": ("lost", "", False),
                "latency_ms_p50": ("latency p50", "ms", False),
                "latency_ms_p99": ("latency p99", "ms", False)},
    "writers": {"tps": ("TPS", "tx/s", True), "tx_ms_p50": ("tx latency p50", "ms", False)},
    "trigger-notify": {"tps": ("TPS (one row, one notification each)", "tx/s", True),
                       "latency_ms": ("latency avg", "ms", False)},
    "idle": {"pss_per_conn_kib": ("memory/conn (PSS delta / K)", "KiB", False),
             "rss_per_conn_kib": ("memory/conn (RSS delta / K)", "KiB", False),
             "open_s": ("time to open K", "s", False),
             "connect_select1_ms": ("connect+SELECT 1+disconnect", "ms", False)},
    "tables": {"tps": ("TPS", "tx/s", True),
               "load_s": ("load time (pgbench's \"done in\")", "s", False),
               "mem_mib": ("memory after the load (tg: RSS increase; PG: database size)",
                           "MiB", False),
               "p99_alone_ms": ("-S p99 latency alone", "ms", False),
               "p99_mixed_ms": ("-S p99 latency beside the aggregate", "ms", False),
               "p99_increase": ("p99 beside ÷ p99 alone (per repetition)", "×", False),
               "p50_alone_ms": ("-S p50 latency alone", "ms", False),
               "p50_mixed_ms": ("-S p50 latency beside the aggregate", "ms", False),
               "tps_alone": ("-S TPS alone", "tx/s", True),
               "tps_mixed": ("-S TPS beside the aggregate", "tx/s", True),
               "agg_count": ("aggregates completed beside", "", True),
               "agg_ms": ("aggregate latency avg", "ms", False)},
}
METRICS["tpcc"] = tpcc.METRICS
METRICS["sysbench"] = sysbench.METRICS
METRICS["lock-wake"] = lockwake.METRICS
METRICS["gin"] = gin.METRICS
METRICS["trgm"] = trgm.METRICS
TABLE_METRICS = {"pgbench": ["tps"],
                 "tpcc": ["tpmC", "tpm_total"] + [f"{t.lower()}_p95_ms" for t in tpcc.TYPES]
                 + ["errors", "load_s", "check_s", "check_passed"],
                 "sysbench": sysbench.TABLE_METRICS,
                 "lock-wake": lockwake.TABLE_METRICS,
                 "gin": gin.TABLE_METRICS,
                 "trgm": trgm.TABLE_METRICS}
LAT_BUCKETS = ["0-0.01", "0.01-0.1", "0.1-1", "1-10", "10-100", ">100"]


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------

CURRENT_CHILD = None  # the load generator running now, terminated on SIGTERM


def log(msg):
    print(msg, flush=True)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_file(path, default=""):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def mem_available_kib():
    m = re.search(r"^MemAvailable:\s+(\d+)", read_file("/proc/meminfo"), re.M)
    return int(m.group(1)) if m else 0


def proc_mem_kib(pid):
    """(RSS, PSS) of one process in KiB, (0, 0) if it is gone."""
    rss = re.search(r"^VmRSS:\s+(\d+)", read_file(f"/proc/{pid}/status"), re.M)
    pss = re.search(r"^Pss:\s+(\d+)", read_file(f"/proc/{pid}/smaps_rollup"), re.M)
    return (int(rss.group(1)) if rss else 0, int(pss.group(1)) if pss else 0)


def children_of(pid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        stat = read_file(f"/proc/{d}/stat")
        # pid (comm) state ppid ...
        r = stat.rfind(")")
        if r < 0:
            continue
        fields = stat[r + 2:].split()
        if len(fields) > 1 and fields[1] == str(pid):
            out.append(int(d))
    return out


def nofile_limit():
    try:
        import resource
        return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except Exception:
        return 1024


def run_cmd(cmd, timeout=60, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def as_pg_user(cmd):
    if os.geteuid() == 0:
        return ["runuser", "-u", PG_USER, "--"] + cmd
    return cmd


def fmt_num(v):
    if v is None:
        return "n/a"
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


# --------------------------------------------------------------------------------------------
# Servers
# --------------------------------------------------------------------------------------------

class PidFile:
    """Lines `threadgres <pid>` / `postgresql <datadir>` so that run.sh can clean up."""

    def __init__(self, path):
        self.path = path
        self.entries = {}

    def set(self, key, value):
        if value is None:
            self.entries.pop(key, None)
        else:
            self.entries[key] = value
        if not self.entries:
            if os.path.exists(self.path):
                os.remove(self.path)
            return
        with open(self.path, "w") as f:
            for k, v in self.entries.items():
                f.write(f"{k} {v}\n")


class PgServer:
    name = PG

    def __init__(self, run_dir, pidfile, max_connections):
        self.run_dir = run_dir
        self.pidfile = pidfile
        self.max_connections = max_connections
        self.tmp = None
        self.port = None
        self.available = False
        self.error = None
        self.restarts = 0
        self.start_failures = 0
        self.binary_ok = True
        self.base_procs = 8
        self.version = ""
        self.settings = []

    @property
    def data(self):
        return os.path.join(self.tmp, "data")

    def start(self):
        try:
            self._start()
            self.available = True
        except Exception as e:  # noqa: BLE001 - any failure makes the server unavailable
            self.error = str(e)
            self.available = False
            log(f"!! PostgreSQL did not start: {e}")
        return self.available

    def _start(self):
        if self.tmp is None:
            self.tmp = tempfile.mkdtemp(prefix="tgbench-pg-")
            if os.geteuid() == 0:
                shutil.chown(self.tmp, PG_USER, PG_USER)
            os.chmod(self.tmp, 0o700)
            r = run_cmd(as_pg_user([f"{PG_BIN}/initdb", "-D", self.data, "-U", "postgres",
                                    "-A", "trust", "-E", "UTF8", "--no-sync"]), timeout=300)
            if r.returncode != 0:
                raise RuntimeError(f"initdb failed: {r.stderr.strip()[-500:]}")
            with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
                f.write("\n# --- set by bench/harness.py ---\n")
                f.write("listen_addresses = '127.0.0.1'\n")
                f.write(f"unix_socket_directories = '{self.tmp}'\n")
                f.write(f"max_connections = {self.max_connections}\n")
        self.port = free_port()
        r = run_cmd(as_pg_user([f"{PG_BIN}/pg_ctl", "-D", self.data, "-l",
                                os.path.join(self.tmp, "postgresql.log"), "-w", "-t", "120",
                                "-o", f"-p {self.port}", "start"]),
                    timeout=180, start_new_session=True)
        if r.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {r.stdout.strip()[-300:]} "
                               f"{r.stderr.strip()[-300:]} "
                               f"{read_file(os.path.join(self.tmp, 'postgresql.log'))[-500:]}")
        self.pidfile.set(PG, self.data)
        time.sleep(0.5)
        self.base_procs = len(self.pids())  # postmaster and background processes
        self.version = self.psql("select version()").strip()
        rows = self.psql("select name, setting, coalesce(unit, ''), source from pg_settings "
                         "where source not in ('default', 'override', 'client', 'session') "
                         "order by name")
        self.settings = [line.split("|") for line in rows.splitlines() if line]

    def psql(self, sql):
        r = run_cmd([f"{PG_BIN}/psql", "-h", "127.0.0.1", "-p", str(self.port), "-U",
                     "postgres", "-d", "postgres", "-AtX", "-c", sql], timeout=60)
        if r.returncode != 0:
            raise RuntimeError(f"psql failed: {r.stderr.strip()}")
        return r.stdout

    def postmaster_pid(self):
        txt = read_file(os.path.join(self.data, "postmaster.pid")) if self.tmp else ""
        try:
            return int(txt.split("\n", 1)[0])
        except ValueError:
            return None

    def alive(self):
        pid = self.postmaster_pid()
        return pid is not None and os.path.exists(f"/proc/{pid}")

    def pids(self):
        pid = self.postmaster_pid()
        if pid is None:
            return []
        return [pid] + children_of(pid)

    def memory(self):
        """(RSS sum, PSS sum, process count) over the postmaster and all its children."""
        rss = pss = 0
        pids = self.pids()
        for p in pids:
            r, s = proc_mem_kib(p)
            rss += r
            pss += s
        return rss, pss, len(pids)

    def stop(self):
        if self.tmp is None:
            return
        if self.alive():
            try:
                run_cmd(as_pg_user([f"{PG_BIN}/pg_ctl", "-D", self.data, "-m", "fast", "-w",
                                    "-t", "60", "stop"]), timeout=90)
            except subprocess.TimeoutExpired:
                pass
            if self.alive():
                try:
                    os.kill(self.postmaster_pid(), signal.SIGQUIT)
                except OSError:
                    pass
        self.pidfile.set(PG, None)

    def cleanup(self):
        if self.tmp and os.path.isdir(self.tmp):
            logf = os.path.join(self.tmp, "postgresql.log")
            if os.path.exists(logf):
                shutil.copy(logf, os.path.join(self.run_dir, "postgresql.log"))
            shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp = None


class TgServer:
    name = TG

    def __init__(self, run_dir, pidfile, binary, max_connections=20000):
        self.run_dir = run_dir
        self.pidfile = pidfile
        self.binary = binary
        self.default_max = max_connections
        self.max_connections = max_connections
        self.proc = None
        self.port = None
        self.available = False
        self.error = None
        self.restarts = 0
        self.start_failures = 0
        self.binary_ok = bool(binary) and os.path.exists(binary)
        self.logf = None

    def command(self):
        return [self.binary, "--port", str(self.port), "--listen", "127.0.0.1",
                "--max-connections", str(self.max_connections), "--log-level", "warn",
                "--data-dir", self.data_dir()]

    def data_dir(self):
        return os.path.join(self.run_dir, "threadgres-data")

    def start(self, max_connections=None):
        self.max_connections = max_connections or self.default_max
        if not self.binary or not os.path.exists(self.binary):
            self.error = f"binary {self.binary} not built"
            self.available = False
            return False
        self.port = free_port()
        # Every start is a fresh server, as before the data directory kept tables: a point never
        # finds (or pays to read back) what an earlier one loaded.
        shutil.rmtree(self.data_dir(), ignore_errors=True)
        self.logf = open(os.path.join(self.run_dir, "threadgres.log"), "a")
        self.logf.write(f"--- {datetime.datetime.now().isoformat()} {' '.join(self.command())}\n")
        self.logf.flush()
        self.proc = subprocess.Popen(self.command(), stdout=self.logf, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        self.pidfile.set(TG, self.proc.pid)
        deadline = time.time() + 30
        last = ""
        while time.time() < deadline:
            if self.proc.poll() is not None:
                last = f"exited with status {self.proc.returncode} (see threadgres.log)"
                break
            try:
                r = run_cmd([CLIENT, "check", "--port", str(self.port),
                             "--connect-timeout-s", "2"], timeout=10)
                if r.returncode == 0:
                    self.available = True
                    self.error = None
                    return True
                last = (r.stdout.strip() or r.stderr.strip())[-300:]
            except subprocess.TimeoutExpired:
                last = "check timed out"
            time.sleep(0.3)
        self.error = f"did not become ready: {last}"
        self.stop()
        self.available = False
        log(f"!! threadgres did not start: {self.error}")
        return False

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def pids(self):
        return [self.proc.pid] if self.alive() else []

    def memory(self):
        if not self.alive():
            return 0, 0, 0
        r, s = proc_mem_kib(self.proc.pid)
        return r, s, 1

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None
        self.pidfile.set(TG, None)
        if self.logf:
            self.logf.close()
            self.logf = None

    def cleanup(self):
        pass


# --------------------------------------------------------------------------------------------
# Running one measurement
# --------------------------------------------------------------------------------------------

class Outcome:
    def __init__(self, status, metrics=None, error=None, detail=None):
        self.status = status          # ok | error | expected-error | timeout | skipped
        self.metrics = metrics or {}
        self.error = error
        self.detail = detail or {}


def run_client(args, port, timeout):
    """Runs the Rust client; returns an Outcome with its JSON result as detail."""
    global CURRENT_CHILD
    cmd = [CLIENT] + args[:1] + ["--port", str(port)] + args[1:]
    try:
        CURRENT_CHILD = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         stdin=subprocess.DEVNULL, text=True)
        out, err = CURRENT_CHILD.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        CURRENT_CHILD.kill()
        CURRENT_CHILD.communicate()
        return Outcome("timeout", error=f"client ran longer than {timeout:.0f}s",
                       detail={"cmd": " ".join(cmd)})
    finally:
        CURRENT_CHILD = None
    res = None
    for line in reversed(out.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                res = json.loads(line)
                break
            except ValueError:
                continue
    if res is None:
        return Outcome("error", error=f"no result line: {err.strip()[-300:]}",
                       detail={"cmd": " ".join(cmd)})
    res["cmd_line"] = " ".join(cmd)
    if not res.get("ok"):
        return Outcome("error", error=res.get("error", "unknown error"), detail=res)
    return Outcome("ok", metrics={k: v for k, v in res.items()
                                  if isinstance(v, (int, float)) and not isinstance(v, bool)},
                   detail=res)


PGB_RE = {
    "tps": re.compile(r"^tps = ([\d.]+)", re.M),
    "latency_ms": re.compile(r"^latency average = ([\d.]+) ms", re.M),
    "failed": re.compile(r"^number of failed transactions: (\d+)", re.M),
    "processed": re.compile(r"^number of transactions actually processed: (\d+)", re.M),
    "initial_connection_ms": re.compile(r"^initial connection time = ([\d.]+) ms", re.M),
    "avg_connection_ms": re.compile(r"^average connection time = ([\d.]+) ms", re.M),
}


TRGN_SETUP = (
    "DROP TABLE IF EXISTS trgn_events; "
    "CREATE TABLE trgn_events (client int, v int); "
    "CREATE OR REPLACE FUNCTION trgn_notify() RETURNS trigger LANGUAGE plpgsql AS "
    "$$ BEGIN PERFORM pg_notify('trgn', row_to_json(NEW)::text); RETURN NULL; END $$; "
    "CREATE TRIGGER trgn AFTER INSERT ON trgn_events FOR EACH ROW EXECUTE FUNCTION trgn_notify();"
)


def writers_table_setup(port, rows):
    """Makes benchmark 6's table (one row per writer session) if it is missing; the error
    text, or None."""
    sql = ("CREATE TABLE IF NOT EXISTS writers_rows (id int PRIMARY KEY, n bigint NOT NULL); "
           f"INSERT INTO writers_rows SELECT g, 0 FROM generate_series(0, {rows - 1}) g "
           "ON CONFLICT (id) DO NOTHING;")
    cmd = [f"{PG_BIN}/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p",
           str(port), "-U", "postgres", "-d", "postgres", "-c", sql]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    return r.stderr.strip() or f"psql exit {r.returncode}" if r.returncode != 0 else None


def trigger_notify_setup(port):
    """Makes the trigger-notify table afresh (the trigger is dropped with it); the error text,
    or None."""
    cmd = [f"{PG_BIN}/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p",
           str(port), "-U", "postgres", "-d", "postgres", "-c", TRGN_SETUP]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    return r.stderr.strip() or f"psql exit {r.returncode}" if r.returncode != 0 else None


def run_pgbench(port, script, mode, clients, jobs, T=None, t=None, connect_each=False,
                timeout=None, builtin=None, no_vacuum=True, extra=()):
    """One pgbench run: `-f script`, or `-b builtin` (tpcb-like, simple-update, select-only)
    with pgbench's pre-run vacuum unless `no_vacuum`; `extra` is added before the database."""
    global CURRENT_CHILD
    cmd = [f"{PG_BIN}/pgbench"] + (["-n"] if no_vacuum else []) + [
           "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
           "-M", mode, "-c", str(clients), "-j", str(jobs)]
    cmd += ["-b", builtin] if builtin else ["-f", script]
    if connect_each:
        cmd.append("-C")
    cmd += ["-T", str(T)] if T else ["-t", str(t)]
    cmd += list(extra)
    cmd.append("postgres")
    if timeout is None:
        timeout = (T or 0) + 120 + clients * 0.1
    env = dict(os.environ, PGCONNECT_TIMEOUT="30")
    try:
        CURRENT_CHILD = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         stdin=subprocess.DEVNULL, text=True, env=env)
        out, err = CURRENT_CHILD.communicate(timeout=timeout)
        rc = CURRENT_CHILD.returncode
    except subprocess.TimeoutExpired:
        CURRENT_CHILD.kill()
        CURRENT_CHILD.communicate()
        return Outcome("timeout", error=f"pgbench ran longer than {timeout:.0f}s",
                       detail={"cmd_line": " ".join(cmd)})
    finally:
        CURRENT_CHILD = None
    metrics = {}
    for k, rx in PGB_RE.items():
        m = rx.search(out)
        if m:
            metrics[k] = float(m.group(1))
    detail = {"cmd_line": " ".join(cmd), "rc": rc, "stdout": out[-2000:],
              "stderr": err[-2000:]}
    aborted = "aborted" in err or rc != 0
    if aborted:
        msg = None
        for pattern in (r"((?:ERROR|FATAL):.*)$", r"error:\s*(.*)$"):
            for line in err.splitlines():
                m = re.search(pattern, line)
                if m:
                    msg = re.sub(r"\s+", " ", m.group(1)).strip()
                    break
            if msg:
                break
        return Outcome("error", metrics={}, error=msg or f"pgbench exit {rc}", detail=detail)
    if metrics.get("processed") == 0:
        return Outcome("error", error="no transaction completed (did opening the connections "
                                      "take the whole -T duration?)", detail=detail)
    if "tps" not in metrics:
        return Outcome("error", error="no tps in pgbench output", detail=detail)
    return Outcome("ok", metrics=metrics, detail=detail)


# --------------------------------------------------------------------------------------------
# Points of each benchmark
# --------------------------------------------------------------------------------------------

class Point:
    """One configuration of a benchmark; `run(server)` measures it once."""

    def __init__(self, bench, pid, params, run, x=None, series=None, expect_error=None,
                 skip=None, short=False):
        self.bench = bench
        self.id = pid
        self.params = params
        self.run = run
        self.x = x
        self.series = series or ""
        self.expect_error = expect_error  # substring of the expected error, if any
        self.skip = skip  # callable(server) -> reason or None
        self.short = short  # a measurement takes seconds: repeated `reps_short` times


def point_reps(cfg, p):
    return cfg["reps_short"] if p.short else cfg["reps"]


class Suite:
    def __init__(self, opts, cfg, servers, run_dir):
        self.opts = opts
        self.cfg = cfg
        self.servers = servers
        self.run_dir = run_dir
        self.rows = []   # one per metric, as in raw.csv
        self.runs = []   # one per measurement
        self.notes = []
        self.interrupted = False
        self.raw_csv = open(os.path.join(run_dir, "raw.csv"), "w", newline="")
        self.csv = csv.writer(self.raw_csv)
        self.csv.writerow(["time", "bench", "point", "series", "x", "server", "rep", "status",
                           "metric", "value", "error", "params"])
        self.raw_jsonl = open(os.path.join(run_dir, "raw.jsonl"), "w")
        self.idle_per_conn = {}  # server -> measured PSS KiB per connection
        self.tables_state = {}   # server -> (process id, scale) of its loaded pgbench tables

    # -- recording -----------------------------------------------------------------------
    def record(self, p, server, rep, out):
        now = datetime.datetime.now().isoformat(timespec="seconds")
        params = json.dumps(p.params, sort_keys=True)
        base = dict(time=now, bench=p.bench, point=p.id, series=p.series, x=p.x,
                    server=server, rep=rep, status=out.status, error=out.error or "")
        self.runs.append(dict(base, metrics=dict(out.metrics)))
        metrics = out.metrics if out.metrics else {"": None}
        for k, v in metrics.items():
            row = dict(base, metric=k, value=v)
            self.rows.append(row)
            self.csv.writerow([now, p.bench, p.id, p.series, p.x, server, rep, out.status, k,
                               "" if v is None else v, out.error or "", params])
        self.raw_csv.flush()
        self.raw_jsonl.write(json.dumps(dict(base, params=p.params, metrics=out.metrics,
                                             detail=out.detail)) + "\n")
        self.raw_jsonl.flush()

    def close(self):
        self.raw_csv.close()
        self.raw_jsonl.close()

    # -- running -------------------------------------------------------------------------
    def ensure(self, srv):
        """Makes sure the server runs; restarts it if it died. A server that failed to start
        twice in a row is given up for the rest of the run."""
        if srv.available and srv.alive():
            return True
        if not srv.binary_ok or srv.start_failures >= 2:
            return False
        if srv.available:  # it was up and is gone now
            srv.restarts += 1
            self.notes.append(f"{LABEL[srv.name]} had exited before a point and was restarted "
                              f"({srv.restarts} restart(s) in this run; see its log).")
            log(f"!! {LABEL[srv.name]} is not running; restarting it")
            srv.stop()
        if srv.start():
            srv.start_failures = 0
            return True
        srv.start_failures += 1
        return False

    def run_points(self, points, progress):
        for p in points:
            reps = point_reps(self.cfg, p)
            for rep in range(reps):
                order = SERVERS if rep % 2 == 0 else tuple(reversed(SERVERS))
                for name in order:
                    if name not in self.servers:
                        continue
                    srv = self.servers[name]
                    progress["n"] += 1
                    head = (f"[{progress['n']:>4}/{progress['total']} "
                            f"{fmt_elapsed(time.time() - progress['t0'])}] "
                            f"{p.bench} {p.id} | {LABEL[name]} | rep {rep + 1}/{reps}")
                    reason = p.skip(srv) if p.skip else None
                    if reason:
                        out = Outcome("skipped", error=reason)
                    elif not self.ensure(srv):
                        out = Outcome("skipped", error=f"server unavailable: {srv.error}")
                    else:
                        log(f"{head} ...")
                        t = time.time()
                        try:
                            out = p.run(srv)
                        except subprocess.TimeoutExpired as e:
                            out = Outcome("timeout", error=str(e))
                        except KeyboardInterrupt:
                            raise
                        except Exception as e:  # noqa: BLE001 - record and go on
                            out = Outcome("error", error=f"harness: {type(e).__name__}: {e}")
                        if out.status == "ok" and srv.name == TG and not srv.alive():
                            out = Outcome("error", error="server exited during the point",
                                          metrics=out.metrics, detail=out.detail)
                        out.metrics["wall_s"] = round(time.time() - t, 3)
                    if p.expect_error:
                        if out.status == "error" and p.expect_error in (out.error or ""):
                            out.status = "expected-error"
                        elif out.status == "ok":
                            out.status = "unexpected-success"
                    self.record(p, name, rep + 1, out)
                    log(f"{head} -> {summarize(p, out)}")

    # -- benchmark definitions -----------------------------------------------------------
    def points_pgbench(self):
        c = self.cfg
        pts = []
        for script in PGB_SCRIPTS:
            for mode in ("simple", "prepared"):
                for clients in c["pgb_clients"]:
                    jobs = clients if clients <= 32 else CORES
                    path = os.path.join(SCRIPTS, script + ".sql")
                    t = None
                    if c["pgb_t"]:
                        t = max(2, c["pgb_t"] // max(1, clients // 10))

                    T = c["pgb_T"]
                    if T and clients >= 100:
                        # pgbench's -T clock includes opening the connections (2-5 s for 1000
                        # PostgreSQL backends on this machine, more when it is busy)
                        T = max(T + 4, 10)

                    def run(srv, path=path, mode=mode, clients=clients, jobs=jobs, t=t, T=T):
                        return run_pgbench(srv.port, path, mode, clients, jobs, T=T, t=t)

                    expect = None
                    if mode == "prepared" and script.endswith("_unique"):
                        expect = "bind message supplies 1 parameters"
                    pts.append(Point("pgbench", f"{script} -M {mode} c={clients} j={jobs}",
                                     dict(script=script, mode=mode, clients=clients, jobs=jobs,
                                          T=T, t=t),
                                     run, x=clients, series=f"{script} -M {mode}",
                                     expect_error=expect, short=clients < 100))
        return pts

    # -- trigger-notify (issue 32) -----------------------------------------------------------
    # The same insert and notification, sent by an AFTER INSERT trigger (PL/pgSQL, pg_notify of
    # the new row as JSON) or by the statement itself (a CTE that inserts and notifies): the
    # cost of a trigger's notification next to a statement's, on each server.
    def points_trigger_notify(self):
        c = self.cfg
        pts = []
        for series in ("trigger", "statement"):
            for n in c["trgn_clients"]:
                def run(srv, series=series, n=n):
                    err = trigger_notify_setup(srv.port)
                    if err:
                        return Outcome("error", error=err)
                    path = os.path.join(SCRIPTS, f"notify_{series}.sql")
                    return run_pgbench(srv.port, path, "prepared", n, min(n, 8), T=c["trgn_T"])
                pts.append(Point("trigger-notify", f"{series} -M prepared c={n}",
                                 dict(series=series, clients=n, T=c["trgn_T"]),
                                 run, x=n, series=series, short=True))
        return pts

    def points_pingpong(self):
        c = self.cfg
        pts = []
        for k in c["pingpong_extra"]:
            def run(srv, k=k):
                # One client thread (a current-thread runtime): a ping-pong has one message
                # in flight at any time, and with the default two worker threads every hop
                # was also a wake-up between the client's threads, placed at random by work
                # stealing (5.9-9.3k round trips/s between repetitions against threadgres,
                # 13.2-15.0k with one thread; PostgreSQL 3.0-3.4k against 4.0k).
                return run_client(["pingpong", "--threads", "1", "--extra", str(k),
                                   "--duration-s", str(c["dur"]), "--warmup-s", str(c["warm"])],
                                  srv.port,
                                  timeout=c["dur"] + c["warm"] + 120 + k * 0.05)
            pts.append(Point("pingpong", f"extra={k}", dict(extra=k, duration_s=c["dur"]), run,
                             x=k, series="ping-pong", short=True))
        return pts

    def points_multicast(self):
        c = self.cfg
        pts = []
        for g, p in c["multicast"]:
            def run(srv, g=g, p=p):
                return run_client(["multicast", "--groups", str(g), "--pongs", str(p),
                                   "--duration-s", str(c["dur"]), "--warmup-s", str(c["warm"])],
                                  srv.port, timeout=c["dur"] + c["warm"] + 120)
            pts.append(Point("multicast", f"G={g} P={p}", dict(groups=g, pongs=p,
                                                               duration_s=c["dur"]),
                             run, x=f"{g}x{p}", series="multicast"))
        return pts

    def points_wide(self):
        c = self.cfg
        pts = []

        def mk(series, n, listeners, idle):
            def run(srv):
                args = ["wide-notify", "--channels", str(n), "--listeners", str(listeners),
                        "--idle", str(idle), "--iterations", str(c["wide_iters"])]
                return wide_metrics(run_client(args, srv.port,
                                               timeout=180 + n * listeners * 0.002
                                               + c["wide_iters"] * n * 0.002))
            x = {"channels": n, "listeners": listeners, "idle": idle}[series]
            label = {"channels": f"channels N={n}",
                     "listeners": f"listeners L={listeners} (N={n})",
                     "idle": f"idle I={idle} (N={n})"}[series]
            return Point("wide-notify", label,
                         dict(channels=n, listeners=listeners, idle=idle,
                              iterations=c["wide_iters"]), run, x=x, series=series)

        for n in c["wide_N"]:
            pts.append(mk("channels", n, 1, 0))
        for L in c["wide_L"]:
            pts.append(mk("listeners", 1000, L, 0))
        for i in c["wide_I"]:
            pts.append(mk("idle", 1000, 1, i))
        return pts

    def points_latency(self):
        c = self.cfg
        runs = [("paced", 1, 1, 1000, True), ("unpaced", 1, 1, 1000, False),
                ("unpaced", 10, 10, 1000, False)]
        pts = []
        for label, L, N, C, paced in runs:
            def run(srv, L=L, N=N, C=C, paced=paced):
                args = ["latency", "--listeners", str(L), "--notifiers", str(N), "--channels",
                        str(C), "--duration-s", str(c["lat_dur"]), "--warmup-s",
                        str(c["lat_warm"])]
                if paced:
                    args.append("--paced")
                return run_client(args, srv.port, timeout=c["lat_dur"] + c["lat_warm"] + 120)
            pts.append(Point("latency", f"{label} L={L} N={N} C={C}",
                             dict(listeners=L, notifiers=N, channels=C, paced=paced,
                                  duration_s=c["lat_dur"]), run, x=f"{label} {L}/{N}/{C}",
                             series="latency"))
        return pts

    def points_writers(self):
        """Benchmark 6 in three series per client count: NOTIFY alone (`writers`), an UPDATE of
        the session's own row with the NOTIFY (`update+notify`, issue 29's workload) and the
        same UPDATE without it (`update`, its baseline in the same run)."""
        c = self.cfg
        pts = []
        update = "UPDATE writers_rows SET n = n + 1 WHERE id = {i}"
        series = (("writers", None, False), ("update+notify", update, False),
                  ("update", update, True))
        for name, extra, without in series:
            for n in c["writers_C"]:
                def run(srv, n=n, extra=extra, without=without):
                    if extra:
                        err = writers_table_setup(srv.port, max(c["writers_C"]))
                        if err:
                            raise RuntimeError(f"writers_rows setup failed: {err}")
                    args = ["writers", "--clients", str(n), "--duration-s", str(c["dur"]),
                            "--warmup-s", str(c["warm"]), "--synchronous-commit", "on"]
                    if extra:
                        args += ["--extra-sql", extra]
                    if without:
                        args.append("--without-notify")
                    out = run_client(args, srv.port, timeout=c["dur"] + c["warm"] + 120)
                    err = out.detail.get("synchronous_commit_error")
                    if err:
                        self.notes.append(f"Benchmark 6: {LABEL[srv.name]} rejected "
                                          f"`SET synchronous_commit = on` ({err}); its sessions "
                                          "ran with the server's default.")
                    return out
                pid = f"C={n}" if name == "writers" else f"{name} C={n}"
                pts.append(Point("writers", pid, dict(clients=n, duration_s=c["dur"],
                                                      synchronous_commit="on", series=name),
                                 run, x=n, series=name))
        return pts

    def points_idle(self):
        c = self.cfg
        pts = []
        limit = nofile_limit()
        for k in c["idle_K"]:
            def skip(srv, k=k):
                need = k + 200
                if srv.name == PG and k > srv.max_connections - 10:
                    return (f"PostgreSQL runs one process per connection; K={k} is above "
                            f"its max_connections={srv.max_connections} on this machine")
                if need > limit:
                    return (f"K={k} needs more than the {limit} file descriptors this "
                            "process may open (hard limit; raising it needs CAP_SYS_RESOURCE)")
                per = self.idle_per_conn.get(srv.name, 1500.0 if srv.name == PG else 100.0)
                est = (per * 1.25 + 30) * k  # server plus about 30 KiB client side per conn
                avail = mem_available_kib()
                if est > 0.7 * avail:
                    return (f"estimated memory {est / 1048576:.1f} GiB exceeds 70% of the "
                            f"available {avail / 1048576:.1f} GiB")
                return None

            def run(srv, k=k):
                return self.measure_idle(srv, k)

            pts.append(Point("idle", f"K={k}", dict(connections=k), run, x=k, series="idle",
                             skip=skip))

        def run_connect(srv):
            return run_pgbench(srv.port, os.path.join(SCRIPTS, "select1.sql"), "simple", 1, 1,
                               T=c["connect_T"], t=c["connect_t"], connect_each=True)

        pts.append(Point("idle", "pgbench -C (connect+SELECT 1+disconnect)",
                         dict(T=c["connect_T"], t=c["connect_t"], clients=1),
                         lambda srv: connect_metrics(run_connect(srv)), x="connect",
                         series="connect"))
        return pts

    def measure_idle(self, srv, k):
        global CURRENT_CHILD
        # Let connections of the previous point go away first.
        if srv.name == PG:
            deadline = time.time() + 60
            while time.time() < deadline and len(srv.pids()) > srv.base_procs:
                time.sleep(0.2)
        restart = None
        if srv.name == TG:
            # A fresh process: memory freed by earlier points stays resident in the
            # allocator and would be reused by these connections, hiding their cost.
            restart = max(k + 1000, srv.default_max) if k + 100 > srv.default_max else None
            srv.stop()
            if not srv.start(max_connections=restart):
                return Outcome("error", error="threadgres did not restart"
                               + (f" with --max-connections {restart}" if restart else ""))
        time.sleep(0.5)
        before = srv.memory()
        cmd = [CLIENT, "idle", "--port", str(srv.port), "--connections", str(k),
               "--hold-max-s", "300"]
        t0 = time.time()
        timeout = 120 + k * 0.02
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        CURRENT_CHILD = proc
        try:
            ready = None
            lines = []
            while time.time() - t0 < timeout:
                r, _, _ = select.select([proc.stdout], [], [], 1.0)
                if not r:
                    if proc.poll() is not None:
                        break
                    continue
                line = proc.stdout.readline()
                if not line:
                    break
                lines.append(line)
                if '"event":"ready"' in line.replace(" ", ""):
                    ready = json.loads(line)
                    break
            if ready is None:
                proc.kill()
                out, err = proc.communicate()
                text = "".join(lines) + out
                res = last_json(text)
                return Outcome("error" if proc.returncode is not None else "timeout",
                               error=(res or {}).get("error") or err.strip()[-300:]
                               or "client never became ready", detail={"cmd_line": " ".join(cmd)})
            time.sleep(1.0 + k / 10000.0)  # let the last backends settle
            after = srv.memory()
            proc.stdin.write("go\n")
            proc.stdin.flush()
            out, err = proc.communicate(timeout=120 + k * 0.01)
        finally:
            CURRENT_CHILD = None
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        res = last_json(out) or {}
        opened = ready.get("opened", 0)
        metrics = {"opened": opened, "failed": ready.get("failed", 0),
                   "open_s": ready.get("open_s"),
                   "rss_before_kib": before[0], "rss_after_kib": after[0],
                   "pss_before_kib": before[1], "pss_after_kib": after[1],
                   "server_processes_before": before[2], "server_processes_after": after[2]}
        if opened:
            metrics["rss_per_conn_kib"] = (after[0] - before[0]) / opened
            metrics["pss_per_conn_kib"] = (after[1] - before[1]) / opened
            metrics["open_per_s"] = opened / max(ready.get("open_s", 0) or 1e-9, 1e-9)
            self.idle_per_conn[srv.name] = max(self.idle_per_conn.get(srv.name, 0.0),
                                               metrics["pss_per_conn_kib"])
        if restart:
            srv.stop()
            srv.start()
        detail = dict(res, cmd_line=" ".join(cmd), ready=ready)
        if not res.get("ok") or ready.get("failed"):
            return Outcome("error", metrics=metrics,
                           error=res.get("error") or res.get("first_error")
                           or f"{ready.get('failed')} of {k} connections failed", detail=detail)
        return Outcome("ok", metrics=metrics, detail=detail)


    # -- tables (benchmarks 8-9) ---------------------------------------------------------
    # Every point works on pgbench's tables at one scale, loaded with `pgbench -i -I dtGvp`
    # (server-side generation, the steps measured since before threadgres had COPY FROM; the
    # default steps, with client-side generation through COPY, are a point of their own at the
    # run scale). A server holds the tables of its last load; `tables_ready` loads them again
    # (untimed) when the scale differs or the process is a new one (each threadgres start gets
    # an empty data directory).
    def points_tables(self):
        c = self.cfg
        scale = c["tbl_scale"]
        T = c["tbl_T"]
        pts = []

        def init_point(s, steps="dtGvp"):
            return Point("tables", tbl_init_id(s, steps), dict(scale=s, steps=steps),
                         lambda srv: self.measure_init(srv, s, steps), x=s, series="init",
                         skip=lambda srv: self.init_skip(srv, s))

        for s in c["tbl_init_scales"]:
            if s <= scale or c.get("tbl_load_only"):
                pts.append(init_point(s))
        # pgbench's default steps: the client generates the rows and sends them with COPY.
        pts.append(init_point(scale, "dtgvp"))
        if c.get("tbl_load_only"):
            return pts
        for mode in ("simple", "prepared"):
            for n in c["tbl_S_clients"]:
                # pgbench's -T clock includes opening the connections (2-5 s for 1000
                # PostgreSQL backends on this machine)
                TT = max(T + 4, 10) if n >= 1000 else T

                def run(srv, mode=mode, n=n, TT=TT):
                    return self.run_table_pgbench(srv, scale, "select-only", mode, n, TT,
                                                  no_vacuum=True)
                pts.append(Point("tables", tbl_select_id(mode, n),
                                 dict(scale=scale, builtin="select-only", mode=mode, clients=n,
                                      jobs=tbl_jobs(n), T=TT),
                                 run, x=n, series=f"select-only -M {mode}"))
        for script in ("tpcb-like", "simple-update"):
            for n in c["tbl_write_clients"]:
                def run(srv, script=script, n=n):
                    return self.run_table_pgbench(srv, scale, script, "simple", n, T,
                                                  no_vacuum=False)
                pts.append(Point("tables", tbl_write_id(script, n),
                                 dict(scale=scale, builtin=script, mode="simple", clients=n,
                                      jobs=tbl_jobs(n), T=T),
                                 run, x=n, series=script))
        mT = c["tbl_mixed_T"]
        pts.append(Point("tables", TBL_MIXED_ID,
                         dict(scale=scale, builtin="select-only", mode="simple", clients=8,
                              jobs=2, T=mT, aggregate="bench/pgbench/aggregate.sql"),
                         lambda srv: self.measure_mixed(srv, scale, mT), x=8, series="mixed"))
        # A larger scale last: the points above need no reload after it.
        for s in c["tbl_init_scales"]:
            if s > scale:
                pts.append(init_point(s))
        return pts

    def tables_key(self, srv):
        return srv.proc.pid if srv.name == TG else srv.postmaster_pid()

    def tables_ready(self, srv, scale):
        """None when the server holds pgbench's tables at `scale`, else loads them; returns
        an error text if that fails."""
        if self.tables_state.get(srv.name) == (self.tables_key(srv), scale):
            return None
        self.tables_state.pop(srv.name, None)
        log(f"   loading pgbench tables at scale {scale} into {LABEL[srv.name]} (untimed)")
        out = pgbench_init(srv.port, scale, timeout=300 + scale * 30)
        if out.status != "ok":
            return f"loading the tables at scale {scale} failed: {out.error}"
        self.tables_state[srv.name] = (self.tables_key(srv), scale)
        return None

    def init_skip(self, srv, s):
        # threadgres held about 215 MiB more after -s 10 (peak about 240), PostgreSQL's
        # database about 160 MiB
        per_scale = 30 * 1024 if srv.name == TG else 20 * 1024
        est = per_scale * s * 1.3
        avail = mem_available_kib()
        if est > 0.7 * avail:
            return (f"estimated memory {est / 1048576:.1f} GiB exceeds 70% of the available "
                    f"{avail / 1048576:.1f} GiB")
        return None

    def measure_init(self, srv, s, steps="dtGvp"):
        self.tables_state.pop(srv.name, None)
        before = None
        if srv.name == TG:
            # A fresh process: its RSS before the load is the baseline, and nothing freed
            # by earlier points is reused by the new tables.
            srv.stop()
            if not srv.start():
                return Outcome("error", error="threadgres did not restart")
            time.sleep(0.5)
            before = proc_status_kib(srv.proc.pid)
        else:
            # Untimed, so that PostgreSQL's step d does not drop a previous load's files.
            srv.psql("drop table if exists pgbench_accounts, pgbench_branches, "
                     "pgbench_history, pgbench_tellers")
            srv.psql("checkpoint")
        out = pgbench_init(srv.port, s, timeout=300 + s * 30, steps=steps)
        if out.status != "ok":
            return out
        time.sleep(0.5)
        if srv.name == TG:
            after = proc_status_kib(srv.proc.pid)
            out.metrics.update(rss_before_kib=before["VmRSS"], rss_after_kib=after["VmRSS"],
                               rss_peak_kib=after["VmHWM"],
                               mem_mib=(after["VmRSS"] - before["VmRSS"]) / 1024)
        else:
            size = int(srv.psql("select pg_database_size(current_database())").strip())
            rss, pss, nproc = srv.memory()
            out.metrics.update(db_size_bytes=size, mem_mib=size / 1048576,
                               server_pss_kib=pss, server_processes=nproc)
        self.tables_state[srv.name] = (self.tables_key(srv), s)
        return out

    def run_table_pgbench(self, srv, scale, builtin, mode, n, T, no_vacuum):
        err = self.tables_ready(srv, scale)
        if err:
            return Outcome("error", error=err)
        return run_pgbench(srv.port, None, mode, n, tbl_jobs(n), T=T, builtin=builtin,
                           no_vacuum=no_vacuum, timeout=T + 180 + n * 0.1)

    def measure_mixed(self, srv, scale, T):
        """`pgbench -S -c 8 -j 2 -l` for T seconds alone, then again while one more session
        (a second pgbench, -c 1) repeats `SELECT count(*), sum(abalance) FROM
        pgbench_accounts` for T + 1 seconds; p50/p99 from the per-transaction logs."""
        err = self.tables_ready(srv, scale)
        if err:
            return Outcome("error", error=err)
        tmp = tempfile.mkdtemp(prefix="tgbench-mixed-")
        agg = None
        try:
            alone, lat_alone = logged_select_only(srv.port, os.path.join(tmp, "alone"), T)
            if alone.status != "ok":
                return alone
            agg_cmd = [f"{PG_BIN}/pgbench", "-n", "-h", "127.0.0.1", "-p", str(srv.port),
                       "-U", "postgres", "-c", "1", "-j", "1", "-T", str(T + 1), "-f",
                       os.path.join(SCRIPTS, "aggregate.sql"), "postgres"]
            agg = subprocess.Popen(agg_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   stdin=subprocess.DEVNULL, text=True)
            time.sleep(0.3)  # the aggregate is running before the measured window opens
            mixed, lat_mixed = logged_select_only(srv.port, os.path.join(tmp, "mixed"), T)
            aout, aerr = agg.communicate(timeout=T + 300)
        finally:
            if agg is not None and agg.poll() is None:
                agg.kill()
                agg.communicate()
            shutil.rmtree(tmp, ignore_errors=True)
        detail = {"alone": alone.detail, "mixed": mixed.detail,
                  "aggregate": {"cmd_line": " ".join(agg_cmd), "rc": agg.returncode,
                                "stdout": aout[-2000:], "stderr": aerr[-2000:]}}
        if mixed.status != "ok":
            return Outcome(mixed.status, error=mixed.error, detail=detail)
        if agg.returncode != 0 or "aborted" in aerr:
            return Outcome("error", error="the aggregate session failed: "
                           + (aerr.strip().splitlines() or ["?"])[-1][:200], detail=detail)
        m = {"tps_alone": alone.metrics.get("tps"), "tps_mixed": mixed.metrics.get("tps"),
             "p50_alone_ms": percentile(lat_alone, 0.50),
             "p99_alone_ms": percentile(lat_alone, 0.99),
             "p50_mixed_ms": percentile(lat_mixed, 0.50),
             "p99_mixed_ms": percentile(lat_mixed, 0.99),
             "samples_alone": len(lat_alone), "samples_mixed": len(lat_mixed)}
        for k, rx in (("agg_count", PGB_RE["processed"]), ("agg_ms", PGB_RE["latency_ms"])):
            mm = rx.search(aout)
            if mm:
                m[k] = float(mm.group(1))
        if m["p99_alone_ms"] and m["p99_mixed_ms"] is not None:
            m["p99_increase"] = m["p99_mixed_ms"] / m["p99_alone_ms"]
        m = {k: v for k, v in m.items() if v is not None}
        if not lat_alone or not lat_mixed:
            return Outcome("error", metrics=m, error="no per-transaction log lines",
                           detail=detail)
        return Outcome("ok", metrics=m, detail=detail)


# --------------------------------------------------------------------------------------------
# Tables (benchmarks 8-9): helpers
# --------------------------------------------------------------------------------------------

def tbl_jobs(n):
    # pgbench threads: at most 2 (this machine has 2 cores and the servers need them too)
    return min(n, 2)


def tbl_init_id(s, steps="dtGvp"):
    return f"pgbench -i -I {steps} -s {s}"


def tbl_select_id(mode, n):
    return f"-S -M {mode} c={n} j={tbl_jobs(n)}"


def tbl_write_id(script, n):
    return f"{script} -M simple c={n} j={tbl_jobs(n)}"


TBL_MIXED_ID = "mixed: -S -M simple c=8 j=2, alone / beside the aggregate"

PGB_INIT_RE = re.compile(r"done in ([\d.]+) s \((.*)\)")


def proc_status_kib(pid):
    txt = read_file(f"/proc/{pid}/status")
    out = {}
    for k in ("VmRSS", "VmHWM"):
        m = re.search(rf"^{k}:\s+(\d+)", txt, re.M)
        out[k] = int(m.group(1)) if m else 0
    return out


def pgbench_init(port, scale, timeout, steps="dtGvp"):
    """`pgbench -i -I steps -s scale`; load_s = pgbench's "done in", plus its steps."""
    global CURRENT_CHILD
    cmd = [f"{PG_BIN}/pgbench", "-i", "-I", steps, "-s", str(scale), "-h", "127.0.0.1",
           "-p", str(port), "-U", "postgres", "postgres"]
    t0 = time.time()
    try:
        CURRENT_CHILD = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         stdin=subprocess.DEVNULL, text=True)
        out, err = CURRENT_CHILD.communicate(timeout=timeout)
        rc = CURRENT_CHILD.returncode
    except subprocess.TimeoutExpired:
        CURRENT_CHILD.kill()
        CURRENT_CHILD.communicate()
        return Outcome("timeout", error=f"pgbench -i ran longer than {timeout:.0f}s",
                       detail={"cmd_line": " ".join(cmd)})
    finally:
        CURRENT_CHILD = None
    wall = time.time() - t0
    text = out + err
    detail = {"cmd_line": " ".join(cmd), "rc": rc, "stdout": out[-2000:], "stderr": err[-2000:]}
    m = PGB_INIT_RE.search(text)
    if rc != 0 or not m:
        msg = None
        for line in err.splitlines():
            mm = re.search(r"((?:ERROR|FATAL|error):.*)$", line)
            if mm:
                msg = mm.group(1).strip()
                break
        return Outcome("error", error=msg or f"pgbench -i exit {rc}", detail=detail)
    metrics = {"load_s": float(m.group(1)), "load_wall_s": round(wall, 3)}
    for part in m.group(2).split(","):
        mm = re.match(r"\s*([a-z -]+?) ([\d.]+) s", part)
        if mm:
            metrics[mm.group(1).replace(" ", "_").replace("-", "_") + "_s"] = float(mm.group(2))
    return Outcome("ok", metrics=metrics, detail=detail)


def logged_select_only(port, prefix, T):
    """`pgbench -S -c 8 -j 2 -l`: (Outcome, per-transaction latencies in ms)."""
    out = run_pgbench(port, None, "simple", 8, 2, T=T, builtin="select-only", no_vacuum=True,
                      extra=["-l", "--log-prefix", prefix], timeout=T + 180)
    lat = []
    d = os.path.dirname(prefix)
    base = os.path.basename(prefix) + "."
    for name in sorted(os.listdir(d)):
        if not name.startswith(base):
            continue
        with open(os.path.join(d, name)) as f:
            for line in f:
                # client_id transaction_no time(us) script_no time_epoch time_us [lag]
                parts = line.split()
                if len(parts) >= 3 and parts[2].isdigit():
                    lat.append(int(parts[2]) / 1000.0)
    return out, lat


def percentile(values, q):
    if not values:
        return None
    v = sorted(values)
    return v[max(0, math.ceil(q * len(v)) - 1)]


def wide_metrics(out):
    """COMMIT and delivery time of a run: the medians of its iterations."""
    if out.status == "ok":
        for key, samples in (("commit_ms", "commit_ms_samples"),
                             ("deliver_ms", "deliver_ms_samples"),
                             ("first_ms", "first_ms_samples")):
            v = out.detail.get(samples)
            if v:
                out.metrics[key] = statistics.median(v)
    return out


def connect_metrics(out):
    if out.status == "ok" and out.metrics.get("tps"):
        out.metrics["connect_select1_ms"] = 1000.0 / out.metrics["tps"]
    return out


def last_json(text):
    for line in reversed((text or "").splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                pass
    return None


def fmt_elapsed(s):
    s = int(s)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def summarize(p, out):
    if out.status not in ("ok",):
        return f"{out.status}: {(out.error or '')[:160]}"
    keys = list(METRICS.get(p.bench, {}))
    parts = []
    for k in keys:
        if k in out.metrics:
            label, unit, _ = METRICS[p.bench][k]
            parts.append(f"{label} {fmt_num(out.metrics[k])}{(' ' + unit) if unit else ''}")
    return ", ".join(parts) or "ok"


# --------------------------------------------------------------------------------------------
# Aggregation and report
# --------------------------------------------------------------------------------------------

def aggregate(runs):
    """({(bench, point): {server: {metric: [values of ok runs]}}},
        {(bench, point): {server: {"statuses": [...], "errors": [...]}}})"""
    agg = {}
    status = {}
    for r in runs:
        key = (r["bench"], r["point"])
        st = status.setdefault(key, {}).setdefault(r["server"], {"statuses": [], "errors": []})
        st["statuses"].append(r["status"])
        if r["error"]:
            st["errors"].append(r["error"])
        if r["status"] != "ok":
            continue
        for m, v in r["metrics"].items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                agg.setdefault(key, {}).setdefault(r["server"], {}).setdefault(m, []).append(
                    float(v))
    return agg, status


def best_median(values, higher):
    if not values:
        return None, None
    return (max(values) if higher else min(values)), statistics.median(values)


def cell(values, higher, reps):
    best, med = best_median(values, higher)
    if med is None:
        return "n/a"
    if reps > 1 and len(values) > 1:
        return f"{fmt_num(med)} (best {fmt_num(best)})"
    return fmt_num(med)


def status_cell(st):
    if not st:
        return "n/a"
    errs = st["errors"]
    s = [x for x in st["statuses"] if x != "ok"]
    if not s:
        return "n/a"
    kind = s[0]
    msg = errs[0] if errs else ""
    if kind == "expected-error":
        kind = "fails as expected"
    msg = msg.replace("|", "\\|").replace("\n", " ")
    if len(msg) > 90:
        msg = msg[:87] + "..."
    return f"{kind}: {msg}" if msg else kind


def ratio(tg, pg):
    if tg is None or pg is None or pg == 0:
        return "n/a"
    return f"{tg / pg:.2f}"


def machine_info():
    cpu = re.search(r"^model name\s*:\s*(.+)$", read_file("/proc/cpuinfo"), re.M)
    mem = re.search(r"^MemTotal:\s+(\d+)", read_file("/proc/meminfo"), re.M)
    osr = re.search(r'^PRETTY_NAME="?([^"\n]+)', read_file("/etc/os-release"), re.M)
    return {
        "cpu": cpu.group(1).strip() if cpu else platform.processor(),
        "cores": CORES,
        "memory_gib": round(int(mem.group(1)) / 1048576, 1) if mem else None,
        "kernel": platform.release(),
        "os": osr.group(1) if osr else platform.platform(),
        "nofile": nofile_limit(),
    }


def git_describe():
    try:
        r = run_cmd(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], timeout=10)
        head = r.stdout.strip() if r.returncode == 0 else "(no commit)"
        d = run_cmd(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                    timeout=10)
        return head + (" (with uncommitted changes)" if d.stdout.strip() else "")
    except Exception:  # noqa: BLE001
        return "unknown"


def collect_meta(suite, opts, servers, started, finished):
    """Everything the report needs besides the measurements (saved as meta.json)."""
    pg = servers.get(PG)
    tg = servers.get(TG)
    return {
        "mode_name": opts.mode_name,
        "command_line": opts.command_line,
        "reps": suite.cfg["reps"],
        "reps_short": suite.cfg["reps_short"],
        "only": opts.only,
        "started": started.strftime("%Y-%m-%d %H:%M:%S"),
        "finished": finished.strftime("%H:%M:%S"),
        "machine": machine_info(),
        "load_start": " ".join(opts.load_start),
        "load_end": " ".join(read_file("/proc/loadavg").split(" ")[:3]),
        "git": git_describe(),
        "tg_command": " ".join(tg.command()) if tg and tg.port else None,
        "tg_error": tg.error if tg and tg.error and not tg.available else None,
        "tg_restarts": tg.restarts if tg else 0,
        "pg_version": pg.version if pg else None,
        "pg_max_connections": pg.max_connections if pg else None,
        "pg_settings": pg.settings if pg else [],
        "interrupted": suite.interrupted,
        "notes": list(dict.fromkeys(suite.notes)),
    }


def shard_weight_note(run_dir):
    """Whether threadgres' shards could raise their CPU weight (see src/shard_weight.rs):
    the server warns once in its log when the kernel refuses."""
    text = read_file(os.path.join(run_dir, "threadgres.log"))
    if "keep the default CPU weight" in text:
        return ("threadgres shards kept the default CPU weight: the kernel refused a lower nice "
                "value (no CAP_SYS_NICE or RLIMIT_NICE).")
    return ("threadgres' log shows no refusal, so its shards could set their CPU weight (nice "
            "value) from their active sessions (`--shard-weight`). Each server runs in a "
            "session of its own here, where that weight counts only among its own threads.")


def verdict(value, threshold, higher):
    """The target's state: met, within 3 % of it (parity), or not met."""
    if value is None:
        return "not measured"
    if (value >= threshold) if higher else (value <= threshold):
        return "✓ met"
    if (value >= threshold * 0.97) if higher else (value <= threshold * 1.03):
        return "≈ parity (within 3 % of the target)"
    return "✗ not met"


def writers_targets(agg):
    """Issue 29's targets for benchmark 6 at each client count measured: UPDATE + NOTIFY
    at ≥ 90 % of threadgres's own UPDATE alone, and ≥ 5× PostgreSQL's UPDATE + NOTIFY."""
    def med(pid, srv):
        v = agg.get(("writers", pid), {}).get(srv, {}).get("tps")
        return statistics.median(v) if v else None

    counts = sorted({int(pid.rsplit("=", 1)[1]) for (b, pid) in agg
                     if b == "writers" and pid.startswith("update+notify C=")})
    rows = []
    for n in counts:
        tn, tu = med(f"update+notify C={n}", TG), med(f"update C={n}", TG)
        pn, pu = med(f"update+notify C={n}", PG), med(f"update C={n}", PG)
        v = tn / tu if tn is not None and tu else None
        rows.append((f"{n} clients: UPDATE + NOTIFY ≥ 90 % of the same without NOTIFY "
                     "(own rate)", f"{fmt_num(tn)} / {fmt_num(tu)}",
                     f"{fmt_num(pn)} / {fmt_num(pu)}",
                     "n/a" if v is None else f"{v * 100:.1f} %", verdict(v, 0.9, True)))
        v = tn / pn if tn is not None and pn else None
        rows.append((f"{n} clients: UPDATE + NOTIFY ≥ 5× PostgreSQL", fmt_num(tn), fmt_num(pn),
                     "n/a" if v is None else f"{v:.2f}×", verdict(v, 5.0, True)))
    return rows


def tables_targets(agg):
    """Rows of the tables group's targets (issue 19), judged on medians."""
    def med(pid, srv, metric):
        v = agg.get(("tables", pid), {}).get(srv, {}).get(metric)
        return statistics.median(v) if v else None

    def div(a, b):
        return a / b if a is not None and b else None

    def x(v, unit="×"):
        if v is None:
            return "n/a"
        return f"{v * 100:.1f} %" if unit == "%" else f"{v:.2f}×"

    inits = sorted({pid for (b, pid) in agg
                    if b == "tables" and pid.startswith("pgbench -i -I dtGvp")},
                   key=lambda p: int(p.rsplit(" ", 1)[1]))
    rows = []
    s1000 = tbl_select_id("prepared", 1000)
    s10 = tbl_select_id("prepared", 10)
    t1000, t10 = med(s1000, TG, "tps"), med(s10, TG, "tps")
    p1000, p10 = med(s1000, PG, "tps"), med(s10, PG, "tps")
    v = div(t1000, t10)
    rows.append(("`-S -M prepared`, 1000 clients ≥ 90 % of threadgres's own 10-client rate",
                 f"{fmt_num(t1000)} / {fmt_num(t10)}", f"{fmt_num(p1000)} / {fmt_num(p10)}",
                 x(v, "%"), verdict(v, 0.9, True)))
    v = div(t1000, p1000)
    rows.append(("`-S -M prepared`, 1000 clients ≥ 2× PostgreSQL", fmt_num(t1000),
                 fmt_num(p1000), x(v), verdict(v, 2.0, True)))
    v = div(t10, p10)
    rows.append(("`-S -M prepared`, 10 clients ≥ 1.2× PostgreSQL", fmt_num(t10), fmt_num(p10),
                 x(v), verdict(v, 1.2, True)))
    # Issue 29's targets: durable tpcb-like ≥ 2× PostgreSQL at 8 clients, ≥ 3× at 64.
    for n, want in ((8, 2.0), (64, 3.0)):
        pid = tbl_write_id("tpcb-like", n)
        t, p = med(pid, TG, "tps"), med(pid, PG, "tps")
        v = div(t, p)
        rows.append((f"durable tpcb-like, {n} clients ≥ {want:g}× PostgreSQL", fmt_num(t),
                     fmt_num(p), x(v), verdict(v, want, True)))
    pid = tbl_init_id(10) if tbl_init_id(10) in inits else (inits[0] if inits else None)
    t, p = (med(pid, TG, "load_s"), med(pid, PG, "load_s")) if pid else (None, None)
    v = div(t, p)
    what = pid.replace("pgbench -i -I dtGvp ", "") if pid else "-s 10"
    rows.append((f"`pgbench -i -I dtGvp {what}` in ≤ ½ PostgreSQL's time"
                 + ("" if what == "-s 10" else " (target at -s 10)"),
                 f"{fmt_num(t)} s", f"{fmt_num(p)} s", x(v), verdict(v, 0.5, False)))
    client = sorted((pid for (b, pid) in agg
                     if b == "tables" and pid.startswith("pgbench -i -I dtgvp")),
                    key=lambda p: int(p.rsplit(" ", 1)[1]))
    if client:
        t, p = med(client[0], TG, "load_s"), med(client[0], PG, "load_s")
        v = div(t, p)
        what = client[0].replace("pgbench -i -I dtgvp ", "")
        rows.append((f"`pgbench -i {what}` (default steps: rows sent with COPY) in ≤ ½ "
                     "PostgreSQL's time", f"{fmt_num(t)} s", f"{fmt_num(p)} s", x(v),
                     verdict(v, 0.5, False)))
    pid = tbl_init_id(100) if tbl_init_id(100) in inits else (inits[-1] if inits else None)
    t, p = (med(pid, TG, "mem_mib"), med(pid, PG, "mem_mib")) if pid else (None, None)
    v = div(t, p)
    what = pid.replace("pgbench -i -I dtGvp ", "") if pid else "-s 100"
    rows.append((f"memory after `-i {what}` (threadgres RSS increase) ≤ 1.5× PostgreSQL's "
                 "`pg_database_size`" + ("" if what == "-s 100" else
                                         " (target at -s 100, run in full mode only)"),
                 f"{fmt_num(t)} MiB", f"{fmt_num(p)} MiB", x(v), verdict(v, 1.5, False)))
    mixed = next((pid for (b, pid) in agg if b == "tables" and pid.startswith("mixed:")),
                 TBL_MIXED_ID)
    ta, tm = med(mixed, TG, "p99_alone_ms"), med(mixed, TG, "p99_mixed_ms")
    pa, pm = med(mixed, PG, "p99_alone_ms"), med(mixed, PG, "p99_mixed_ms")
    v = div(tm, ta)
    pv = div(pm, pa)
    rows.append(("mixed load: `-S` p99 at 8 clients beside the aggregate ≤ 2× the p99 alone "
                 "(threadgres's own; PostgreSQL's for comparison)",
                 f"{fmt_num(tm)} ms beside / {fmt_num(ta)} ms alone = {x(v)}",
                 f"{fmt_num(pm)} ms / {fmt_num(pa)} ms = {x(pv)}", x(v), verdict(v, 2.0, False)))
    return rows


def write_report(runs, meta, run_dir, plots):
    agg, status = aggregate(runs)
    info = meta["machine"]
    reps = meta["reps"]
    L = []
    L.append(f"# threadgres benchmark report ({meta['mode_name']})")
    L.append("")
    L.append(f"- Date: {meta['started']} – {meta['finished']} (local time)")
    L.append(f"- Command: `{meta['command_line']}`")
    L.append(f"- Machine: {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB, "
             f"{info['os']}, Linux {info['kernel']}, open-file limit {info['nofile']}")
    L.append(f"- Load average (1/5/15 min) at the start: {meta['load_start']}; at the end: "
             f"{meta['load_end']}. Other work on the machine distorts the figures; compare "
             "only figures of the same run.")
    L.append("- **The load generators (pgbench 15 and bench/client `tgbench`) run on the same "
             "machine as the servers** and compete with them for the same cores.")
    L.append(f"- threadgres: commit {meta['git']}; "
             + (f"`{meta['tg_command']}`" if meta["tg_command"] else "not run")
             + (f" — **unavailable: {meta['tg_error']}**" if meta["tg_error"] else ""))
    if meta["pg_version"] is not None:
        L.append(f"- PostgreSQL: {meta['pg_version'] or 'not started'}")
        L.append("- **Both servers commit durably** (`synchronous_commit = on`, `fsync = on`: "
                 "each acknowledged commit's WAL record is fdatasynced, threadgres's as "
                 "PostgreSQL's). PostgreSQL: "
                 f"`max_connections = {meta['pg_max_connections']}`; everything else is the "
                 "initdb default.")
    reps_short = meta.get("reps_short", reps)
    L.append(f"- Repetitions per point: {reps}"
             + (f" ({reps_short} for the points measured in seconds: pgbench up to 32 "
                "clients, ping-pong)" if reps_short != reps else "")
             + ", servers alternating; cells show the "
             "median" + (" and the best" if reps > 1 else "")
             + " of the repetitions. Ratio = threadgres ÷ PostgreSQL of the medians; "
             "↑ marks metrics where higher is better, ↓ where lower is better.")
    if meta["interrupted"]:
        L.append("- **The run was interrupted; the tables hold what was measured until then.**")
    L.append("")

    for num, name, title, implemented in BENCHES:
        if meta["only"] and name not in meta["only"]:
            continue
        L.append(f"## {num}. {title}")
        L.append("")
        if not implemented:
            L.append(f"_{PLACEHOLDER_REASON[name]}._")
            L.append("")
            continue
        L.append(BENCH_NOTES.get(name, ""))
        L.append("")
        points = [k for k in agg.keys() | status.keys() if k[0] == name]
        order = {}
        for r in runs:
            order.setdefault((r["bench"], r["point"]), len(order))
        points.sort(key=lambda k: order.get(k, 0))
        if not points:
            L.append("_not run._")
            L.append("")
            continue
        metrics = TABLE_METRICS.get(name, list(METRICS[name]))
        L.append(f"| point | metric | {LABEL[TG]} | {LABEL[PG]} | ratio |")
        L.append("|---|---|---:|---:|---:|")
        for key in points:
            vals = agg.get(key, {})
            st = status.get(key, {})
            shown = [m for m in metrics
                     if vals.get(TG, {}).get(m) or vals.get(PG, {}).get(m)] or metrics[:1]
            for m in shown:
                label, unit, higher = METRICS[name][m]
                arrow = "↑" if higher else "↓"
                tv = vals.get(TG, {}).get(m)
                pv = vals.get(PG, {}).get(m)
                tcell = cell(tv, higher, reps) if tv else status_cell(st.get(TG))
                pcell = cell(pv, higher, reps) if pv else status_cell(st.get(PG))
                tmed = statistics.median(tv) if tv else None
                pmed = statistics.median(pv) if pv else None
                unit_s = f" ({unit})" if unit else ""
                L.append(f"| {key[1]} | {label}{unit_s} {arrow} | {tcell} | {pcell} | "
                         f"{ratio(tmed, pmed)} |")
        if name == "latency":
            L.append("")
            L.append("Latency histogram (share of deliveries per bucket, median over "
                     "repetitions):")
            L.append("")
            L.append("| run | server | " + " | ".join(f"{b} ms" for b in LAT_BUCKETS) + " |")
            L.append("|---|---|" + "---:|" * len(LAT_BUCKETS))
            for key in points:
                for srv in SERVERS:
                    vals = agg.get(key, {}).get(srv, {})
                    if not vals:
                        continue
                    cells = []
                    for b in LAT_BUCKETS:
                        v = vals.get(f"hist_{b}_pct")
                        cells.append(f"{statistics.median(v):.1f}%" if v else "n/a")
                    L.append(f"| {key[1]} | {LABEL[srv]} | " + " | ".join(cells) + " |")
        if name == "writers" and writers_targets(agg):
            L.append("")
            L.append("Targets (issue 29), judged on the medians above:")
            L.append("")
            L.append(f"| target | {LABEL[TG]} | {LABEL[PG]} | ratio | met? |")
            L.append("|---|---:|---:|---:|---|")
            for row in writers_targets(agg):
                L.append("| " + " | ".join(row) + " |")
        if name == "tables":
            L.append("")
            L.append("Targets (issue 19), judged on the medians above (ratio threadgres ÷ "
                     "PostgreSQL unless stated; within 3 % of a target counts as parity):")
            L.append("")
            L.append(f"| target | {LABEL[TG]} | {LABEL[PG]} | ratio | met? |")
            L.append("|---|---:|---:|---:|---|")
            for row in tables_targets(agg):
                L.append("| " + " | ".join(row) + " |")
        L.append("")
        for n in BENCH_FOOTNOTES.get(name, []):
            L.append(f"- {n}")
        if name in plots:
            L.append("")
            L.append(f"![{name}]({plots[name]})")
        L.append("")

    if meta["notes"]:
        L.append("## Notes from this run")
        L.append("")
        for n in meta["notes"]:
            L.append(f"- {n}")
        L.append("")
    if meta["pg_settings"]:
        L.append("## PostgreSQL configuration (non-default settings)")
        L.append("")
        L.append("| name | setting | unit | source |")
        L.append("|---|---|---|---|")
        for row in meta["pg_settings"]:
            row = (row + ["", "", "", ""])[:4]
            L.append("| " + " | ".join(x.replace("|", "\\|") for x in row) + " |")
        L.append("")
    L.append("Raw results: `raw.csv` (one row per metric and repetition) and `raw.jsonl` "
             "(full client output, commands included).")
    L.append("")
    text = "\n".join(L)
    with open(os.path.join(run_dir, "report.md"), "w") as f:
        f.write(text)
    return text


BENCH_NOTES = {
    "tpcc": tpcc.NOTES,
    "sysbench": sysbench.NOTES,
    "lock-wake": lockwake.NOTES,
    "gin": gin.NOTES,
    "trgm": trgm.NOTES,
    "trigger-notify": "`pgbench -n -f <script> -M prepared -c C` over `trgn_events`, made "
                      "afresh before each point: `trigger` inserts one row, whose AFTER INSERT "
                      "trigger (PL/pgSQL) sends `pg_notify('trgn', row_to_json(NEW)::text)`; "
                      "`statement` inserts the row and sends the same notification from one "
                      "statement (`WITH i AS (INSERT ... RETURNING ...) SELECT pg_notify(...) "
                      "FROM i`). Nobody listens; each transaction commits one row and one "
                      "notification, durably on both servers.",
    "pgbench": "`pgbench -n -f <script> -M simple|prepared -c C -j J` (J = C up to 32; "
               f"{CORES} jobs, as many as cores, at 1000 clients). Each script line is one "
               "autocommitted statement. With `-M prepared` PostgreSQL rejects the `*_unique` "
               "scripts; \"fails as expected\" marks that failure (status `expected-error` "
               "in raw.csv), `unexpected-success` a server that accepted them.",
    "pingpong": "`tgbench pingpong --threads 1 --extra K`: A `SELECT pg_notify('thread_2', "
                "NULL)`, B answers with `SELECT pg_notify('thread_1', NULL)`; K extra sessions "
                "each LISTEN on their own channel and stay idle. The client runs on one thread "
                "(one message is in flight at a time).",
    "multicast": "`tgbench multicast --groups G --pongs P`: one ping and P pong sessions per "
                 "group; a round trip ends when all P answers arrived; total over all groups.",
    "wide-notify": "`tgbench wide-notify --channels N --listeners L --idle I`: one transaction "
                   "NOTIFYs N distinct channels; COMMIT time at the sender, and time from "
                   "sending COMMIT until every listener holds all N, and until the first "
                   "arrives (median of the iterations within a run, then median/best over "
                   "repetitions). The listeners' connections are read on a client thread of their "
                   "own, apart from the sender's, and each connection task counts the "
                   "notifications as it decodes them; tokio-postgres's decoding (about 0.25 µs "
                   "a notification) bounds the \"all received\" figure from below.",
    "latency": "`tgbench latency --listeners L --notifiers N --channels C [--paced]`: "
               "notifiers run `SELECT pg_notify($1, $2)` (prepared, extended protocol) on a "
               "random channel with the send time as payload; paced notifiers sleep 10 µs "
               "(`std::thread::sleep`, rounded up by the OS) between sends. Every listener "
               "listens on all C channels, so each notification is expected L times; rates "
               "count deliveries.",
    "writers": "`tgbench writers --clients C --synchronous-commit on`, three series: "
               "`writers`, each session runs "
               "`BEGIN` / `NOTIFY writers, '<i>'` / `COMMIT` (three simple-protocol "
               "statements) in a loop; one extra session listens. In PostgreSQL a transaction "
               "that only NOTIFYs writes no WAL before its commit record, so it does not wait "
               "for a WAL flush even with synchronous commit on; its NOTIFY commits are "
               "serialized by the notify queue lock. Neither does threadgres's: it has logged "
               "nothing, so its commit appends no record and waits for no flush. "
               "`update+notify` (issue 29's workload): the same with "
               "`UPDATE writers_rows SET n = n + 1 WHERE id = <i>` (each session its own row of "
               "a 64-row table with a primary key) after the NOTIFY, so every commit is "
               "flushed; `update`: the same UPDATE without the NOTIFY, the baseline. PostgreSQL "
               "holds a lock from its NOTIFY's pre-commit step to the end of the commit, flush "
               "included, so its notifying commits are flushed one at a time.",
    "idle": "`tgbench idle --connections K`: opens K sessions (64 attempts in flight), "
            "which authenticate and stay idle; threadgres is restarted before each of these "
            "points, so that memory freed by earlier points does not hide the cost. "
            "Memory = increase of the server's PSS (PostgreSQL: summed over the postmaster "
            "and all its processes; threadgres: its one process) divided by K; RSS likewise "
            "(for PostgreSQL, RSS counts shared memory once per process). The last row is "
            "`pgbench -n -C -c 1 -f select1.sql` (1000 / tps).",
    "tables": "pgbench's tables, loaded with `pgbench -i -I dtGvp -s S` on both servers "
              "(server-side generation with `generate_series`, the steps measured since before "
              "threadgres had COPY FROM; the default client-side steps are spot-checked in "
              "bench/README.md). Both servers are reached over plain TCP (`PGSSLMODE=disable`). "
              "Load time = pgbench's \"done in\" "
              "(PostgreSQL's old tables are dropped and a CHECKPOINT taken first, untimed; "
              "threadgres is restarted before each load). Memory after the load: "
              "threadgres's VmRSS increase over the load (fresh process), beside PostgreSQL's "
              "`pg_database_size(current_database())`. The runs use the built-in scripts at "
              "the run scale: `-S` (select-only, `-n`) at 10/100/1000 clients with `-M simple` "
              "and `-M prepared`; tpcb-like and simple-update (`-M simple`, pgbench's "
              "pre-run vacuum of branches and tellers and truncation of history) at 1/8/64 "
              "clients; `-j` = min(clients, 2). Both servers commit durably "
              "(`synchronous_commit = on`). Mixed load: `pgbench -S -c 8 -j 2 -l` for T s "
              "alone, then again while a second pgbench (`-c 1 -f bench/pgbench/"
              "aggregate.sql`) repeats `SELECT count(*), sum(abalance) FROM pgbench_accounts` "
              "on one more session; p50/p99 from pgbench's per-transaction log.",
}
BENCH_FOOTNOTES = {
    "wide-notify": ["Published figures (seed 001, PostgreSQL master before/after commit "
                    "282b1cde9, i7-4770): COMMIT of 1000 channels 2.03 / 0.49 ms, of 10000 "
                    "channels 140 / 3.6 ms — quoted, not measured here."],
    "pingpong": ["Published figures (seed 000, PostgreSQL master, 0/10/100/1000 extra): "
                 "9119 / 6237 / 2028 / 239 round trips/s; with the v4 patch about 8800–9400 "
                 "— quoted, not measured here."],
}


# --------------------------------------------------------------------------------------------
# Plots
# --------------------------------------------------------------------------------------------

def make_plots(runs, run_dir, notes):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001
        notes.append(f"No plots: matplotlib is not importable ({e}).")
        return {}
    agg, _ = aggregate(runs)
    meta = {}
    for r in runs:
        meta.setdefault((r["bench"], r["point"]), (r["series"], r["x"]))
    colors = {TG: "tab:blue", PG: "tab:orange"}
    plots = {}

    def series_points(bench, series, metric, server):
        pts = []
        for (b, pid), (s, x) in meta.items():
            if b != bench or s != series:
                continue
            v = agg.get((b, pid), {}).get(server, {}).get(metric)
            if v:
                pts.append((x, statistics.median(v)))
        return pts

    def save(fig, name):
        path = os.path.join(run_dir, f"{name}.png")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return os.path.basename(path)

    def numeric_x(pts):
        return sorted((float(x), y) for x, y in pts)

    from matplotlib.ticker import FuncFormatter, NullFormatter

    def compact(v):
        for div, suffix in ((1e6, "M"), (1e3, "k")):
            if abs(v) >= div:
                return f"{v / div:g}{suffix}"
        return f"{v:g}"

    def minor_label(v, _pos):
        if v <= 0:
            return ""
        lead = v / 10 ** math.floor(math.log10(v) + 1e-9)
        return compact(v) if round(lead) in (2, 5) else ""

    def log_y(ax):
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: compact(v)))
        ax.yaxis.set_minor_formatter(FuncFormatter(minor_label))
        ax.tick_params(axis="y", which="both", labelsize=7)

    def log_ticks(ax, xs):
        """Plain labels at the measured x values of a log-scaled x axis; where a decade
        holds several (N = 1000 … 10000), only the powers of ten, so labels don't overlap."""
        decades = [x for x in xs if x > 0 and abs(math.log10(x) - round(math.log10(x))) < 1e-9]
        if len(xs) > 8 and len(decades) >= 2:
            xs = decades
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{x:g}" for x in xs], fontsize=8)
        ax.xaxis.set_minor_formatter(NullFormatter())
        log_y(ax)

    try:
        # 1: throughput vs clients, one panel per script and mode
        series = [f"{s} -M {m}" for s in PGB_SCRIPTS for m in ("simple", "prepared")]
        series = [s for s in series if any(meta_s == s for (b, _), (meta_s, _) in meta.items()
                                           if b == "pgbench")]
        if series:
            cols = 4
            rows_n = (len(series) + cols - 1) // cols
            fig, axes = plt.subplots(rows_n, cols, figsize=(4 * cols, 3.2 * rows_n),
                                     squeeze=False)
            xs_all = sorted({float(x) for (b, _), (_, x) in meta.items() if b == "pgbench"})
            for i, s in enumerate(series):
                ax = axes[i // cols][i % cols]
                for srv in SERVERS:
                    pts = numeric_x(series_points("pgbench", s, "tps", srv))
                    if pts:
                        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-",
                                color=colors[srv], label=LABEL[srv])
                ax.set_title(s, fontsize=9)
                ax.set_xlabel("clients")
                ax.set_ylabel("TPS")
                if ax.has_data():
                    ax.set_xscale("log")
                    ax.set_yscale("log")
                    log_ticks(ax, xs_all)
                    ax.grid(True, which="both", alpha=0.3)
                    ax.legend(fontsize=7)
                else:
                    ax.set_xticks([])
                    ax.set_yticks([])
                    ax.text(0.5, 0.5, "no result\n(fails as expected where\nthe server rejects it)",
                            ha="center", va="center", transform=ax.transAxes, fontsize=9)
            for j in range(len(series), rows_n * cols):
                axes[j // cols][j % cols].axis("off")
            fig.suptitle("pgbench LISTEN/NOTIFY scripts: throughput vs clients")
            plots["pgbench"] = save(fig, "bench1_pgbench_tps")

        # 2: round trips vs idle listeners
        fig, ax = plt.subplots(figsize=(6, 4))
        for srv in SERVERS:
            pts = numeric_x(series_points("pingpong", "ping-pong", "rt_per_s", srv))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color=colors[srv],
                        label=LABEL[srv])
        if ax.has_data():
            ax.set_xscale("symlog", linthresh=10)
            ax.set_xlabel("extra idle listening connections")
            ax.set_ylabel("round trips / s")
            ax.set_title("Ping-pong vs idle listeners")
            ax.grid(True, alpha=0.3)
            ax.legend()
            plots["pingpong"] = save(fig, "bench2_pingpong")
        else:
            plt.close(fig)

        # 3: multicast bars
        labels = [x for (b, _), (_, x) in meta.items() if b == "multicast"]
        labels = list(dict.fromkeys(labels))
        if labels:
            fig, ax = plt.subplots(figsize=(6, 4))
            w = 0.38
            for k, srv in enumerate(SERVERS):
                d = dict(series_points("multicast", "multicast", "rt_per_s", srv))
                bars = ax.bar([i + (k - 0.5) * w for i in range(len(labels))],
                              [d.get(lab, 0) for lab in labels], w, color=colors[srv],
                              label=LABEL[srv])
                ax.bar_label(bars, labels=[fmt_num(d[lab]) if lab in d else "n/a"
                                           for lab in labels], fontsize=7)
            ax.set_xticks(range(len(labels)))
            ax.set_xticklabels([f"G×P={lab}" for lab in labels])
            ax.set_ylabel("round trips / s")
            ax.set_title("Multicast ping-pong")
            ax.legend()
            plots["multicast"] = save(fig, "bench3_multicast")

        # 4: commit time vs N (log), listeners, idle
        fig, axes = plt.subplots(1, 3, figsize=(15, 4))
        any_data = False
        for ax, (series_name, xlabel) in zip(axes, [("channels", "channels N"),
                                                    ("listeners", "listening sessions (N=1000)"),
                                                    ("idle", "idle sessions (N=1000)")]):
            for srv in SERVERS:
                for metric, style in (("commit_ms", "o-"), ("deliver_ms", "s--")):
                    pts = numeric_x(series_points("wide-notify", series_name, metric, srv))
                    if pts:
                        any_data = True
                        what = "COMMIT" if metric == "commit_ms" else "all received"
                        ax.plot([p[0] for p in pts], [p[1] for p in pts], style,
                                color=colors[srv], label=f"{LABEL[srv]} {what}")
            if not ax.has_data():
                continue
            ax.set_yscale("log")
            log_y(ax)
            if series_name == "channels":
                ax.set_xscale("log")
                log_ticks(ax, sorted({float(x) for (b, _), (s, x) in meta.items()
                                      if b == "wide-notify" and s == "channels"}))
            ax.set_xlabel(xlabel)
            ax.set_ylabel("ms")
            ax.grid(True, which="both", alpha=0.3)
            if ax.has_data():
                ax.legend(fontsize=7)
        fig.suptitle("Wide NOTIFY: sender COMMIT time and delivery time")
        if any_data:
            plots["wide-notify"] = save(fig, "bench4_wide_notify")
        else:
            plt.close(fig)

        # 5: latency histograms
        runs = list(dict.fromkeys(pid for (b, pid) in meta if b == "latency"))
        if runs:
            fig, axes = plt.subplots(1, len(runs), figsize=(5 * len(runs), 4), squeeze=False)
            w = 0.38
            for ax, pid in zip(axes[0], runs):
                for k, srv in enumerate(SERVERS):
                    vals = agg.get(("latency", pid), {}).get(srv, {})
                    ys = [statistics.median(vals[f"hist_{b}_pct"])
                          if vals.get(f"hist_{b}_pct") else 0 for b in LAT_BUCKETS]
                    ax.bar([i + (k - 0.5) * w for i in range(len(LAT_BUCKETS))], ys, w,
                           color=colors[srv], label=LABEL[srv])
                ax.set_xticks(range(len(LAT_BUCKETS)))
                ax.set_xticklabels(LAT_BUCKETS, fontsize=8)
                ax.set_xlabel("latency bucket (ms)")
                ax.set_ylabel("% of deliveries")
                ax.set_title(pid, fontsize=9)
                ax.legend(fontsize=7)
            fig.suptitle("Notification latency distribution")
            plots["latency"] = save(fig, "bench5_latency_histogram")

        # 6: writers TPS vs clients, one line per server and series
        fig, ax = plt.subplots(figsize=(6, 4))
        styles = {"writers": "o-", "update+notify": "s-", "update": "^--"}
        for srv in SERVERS:
            for series, style in styles.items():
                pts = numeric_x(series_points("writers", series, "tps", srv))
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], style,
                            color=colors[srv], label=f"{LABEL[srv]}: {series}")
        if ax.has_data():
            ax.set_xscale("log", base=2)
            log_ticks(ax, sorted({float(x) for (b, _), (s, x) in meta.items()
                                  if b == "writers"}))
            ax.set_xlabel("clients")
            ax.set_ylabel("TPS")
            ax.set_title("Notifying writers (synchronous_commit = on)")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
            plots["writers"] = save(fig, "bench6_writers_tps")
        else:
            plt.close(fig)
        # 12: trigger-notify TPS vs clients, per server and series
        fig2, ax2 = plt.subplots(figsize=(6, 4))
        for srv in SERVERS:
            for series, style in (("trigger", "o-"), ("statement", "s--")):
                pts = numeric_x(series_points("trigger-notify", series, "tps", srv))
                if pts:
                    ax2.plot([p[0] for p in pts], [p[1] for p in pts], style,
                             color=colors[srv], label=f"{LABEL[srv]}, {series}")
        if ax2.has_data():
            ax2.set_xscale("log", base=2)
            ax2.set_xlabel("clients")
            ax2.set_ylabel("TPS")
            ax2.set_title("Insert + notification: by a trigger or by the statement")
            ax2.grid(True, alpha=0.3)
            ax2.legend(fontsize=7)
            plots["trigger-notify"] = save(fig2, "bench12_trigger_notify_tps")
        else:
            plt.close(fig2)

        # 10: tpcc: tpmC against threads, per server and warehouse count
        fig3, ax3 = plt.subplots(figsize=(6, 4))
        tpcc_series = sorted({s for (b, _), (s, _) in meta.items()
                              if b == "tpcc" and str(s).startswith("w=")})
        for srv in SERVERS:
            for k, series in enumerate(tpcc_series):
                pts = numeric_x(series_points("tpcc", series, "tpmC", srv))
                if pts:
                    ax3.plot([p[0] for p in pts], [p[1] for p in pts],
                             ["o-", "s--", "^:"][k % 3], color=colors[srv],
                             label=f"{LABEL[srv]}, {series} warehouse(s)")
        if ax3.has_data():
            ax3.set_xscale("log", base=2)
            ax3.set_xlabel("go-tpc threads")
            ax3.set_ylabel("tpmC")
            ax3.set_title("TPC-C (go-tpc): new orders per minute")
            ax3.grid(True, alpha=0.3)
            ax3.legend(fontsize=7)
            plots["tpcc"] = save(fig3, "bench10_tpcc_tpmc")
        else:
            plt.close(fig3)

        # 13: sysbench: transactions/s against threads, per server and script
        fig4, ax4 = plt.subplots(figsize=(6, 4))
        for srv in SERVERS:
            for k, script in enumerate(sysbench.SCRIPTS):
                pts = numeric_x(series_points("sysbench", script, "tps", srv))
                if pts:
                    ax4.plot([p[0] for p in pts], [p[1] for p in pts], ["o-", "s--"][k % 2],
                             color=colors[srv], label=f"{LABEL[srv]}, {script}")
        if ax4.has_data():
            ax4.set_xscale("log", base=2)
            ax4.set_yscale("log")
            ax4.set_xlabel("sysbench threads")
            ax4.set_ylabel("transactions/s")
            ax4.set_title("sysbench (pgsql driver): transactions per second")
            ax4.grid(True, alpha=0.3)
            ax4.legend(fontsize=7)
            plots["sysbench"] = save(fig4, "bench13_sysbench_tps")
        else:
            plt.close(fig4)

        # 8: tables: select-only and read-write TPS against clients
        if any(b == "tables" for (b, _) in meta):
            fig, axes = plt.subplots(1, 2, figsize=(12, 4))
            for ax, group, title in (
                    (axes[0], [("select-only -M simple", "o-"), ("select-only -M prepared",
                                                                 "s--")],
                     "pgbench -S (select-only)"),
                    (axes[1], [("tpcb-like", "o-"), ("simple-update", "s--")],
                     "tpcb-like and simple-update (-M simple)")):
                xs = set()
                for srv in SERVERS:
                    for series_name, style in group:
                        pts = numeric_x(series_points("tables", series_name, "tps", srv))
                        if pts:
                            xs.update(p[0] for p in pts)
                            ax.plot([p[0] for p in pts], [p[1] for p in pts], style,
                                    color=colors[srv],
                                    label=f"{LABEL[srv]} {series_name.split(' ', 1)[-1]}"
                                    if series_name.startswith("select") else
                                    f"{LABEL[srv]} {series_name}")
                if ax.has_data():
                    ax.set_xscale("log")
                    ax.set_yscale("log")
                    log_ticks(ax, sorted(xs))
                    ax.set_xlabel("clients")
                    ax.set_ylabel("TPS")
                    ax.set_title(title, fontsize=10)
                    ax.grid(True, which="both", alpha=0.3)
                    ax.legend(fontsize=7)
                else:
                    ax.axis("off")
            fig.suptitle("Tables: throughput vs clients")
            plots["tables"] = save(fig, "bench8_tables_tps")

        # 7: memory per idle connection
        ks = [x for (b, _), (s, x) in meta.items() if b == "idle" and s == "idle"]
        ks = list(dict.fromkeys(ks))
        if ks:
            fig, ax = plt.subplots(figsize=(6, 4))
            w = 0.38
            for k, srv in enumerate(SERVERS):
                d = dict(series_points("idle", "idle", "pss_per_conn_kib", srv))
                bars = ax.bar([i + (k - 0.5) * w for i in range(len(ks))],
                              [max(d.get(x, 0), 0) for x in ks], w, color=colors[srv],
                              label=LABEL[srv])
                ax.bar_label(bars, labels=[fmt_num(d[x]) if x in d else "n/a" for x in ks],
                             fontsize=8)
            ax.set_xticks(range(len(ks)))
            ax.set_xticklabels([f"K={x}" for x in ks])
            ax.set_ylabel("KiB per connection (PSS delta / K)")
            ax.set_title("Server memory per idle connection")
            ax.legend()
            plots["idle"] = save(fig, "bench7_idle_memory")
    except Exception as e:  # noqa: BLE001 - plots are a convenience
        notes.append(f"Plotting failed: {type(e).__name__}: {e}")
    return plots


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------

def flatten_latency(out):
    """Adds the histogram shares as hist_<bucket>_pct metrics."""
    if out.status == "ok":
        for b in out.detail.get("histogram", []):
            out.metrics[f"hist_{b['bucket_ms']}_pct"] = b["pct"]
    return out


def main():
    # One transport for both servers: threadgres offers TLS by default and a default
    # PostgreSQL cluster does not, so libpq's sslmode=prefer would encrypt every threadgres
    # session (pgbench, psql) and none of PostgreSQL's. Plain TCP for both.
    os.environ["PGSSLMODE"] = "disable"
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mode", choices=["quick", "full"], default="quick")
    ap.add_argument("--smoke", action="store_true", help="seconds-long points (CI)")
    ap.add_argument("--only", default="", help="comma-separated benchmark names or numbers")
    ap.add_argument("--servers", default="threadgres,postgresql")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--run-dir", required=True)
    ap.add_argument("--tg-bin", default=os.path.join(REPO, "target", "release", "threadgres"))
    ap.add_argument("--tg-build-error", default="")
    ap.add_argument("--pg-max-connections", type=int, default=None)
    ap.add_argument("--command-line", default="bench/run.sh")
    ap.add_argument("--tables-scales", default="",
                    help="comma-separated scales of the tables group's pgbench -i points "
                         "(default: the mode's)")
    ap.add_argument("--tables-load-only", action="store_true",
                    help="the tables group measures only its pgbench -i points")
    opts = ap.parse_args()

    cfg = dict(MODES["smoke" if opts.smoke else opts.mode])
    if opts.reps:
        cfg["reps"] = cfg["reps_short"] = opts.reps
    if opts.tables_scales:
        try:
            cfg["tbl_init_scales"] = sorted({int(x) for x in opts.tables_scales.split(",")
                                             if x.strip()})
        except ValueError:
            ap.error(f"--tables-scales: not a list of integers: {opts.tables_scales!r}")
    cfg["tbl_load_only"] = opts.tables_load_only
    opts.mode_name = f"{opts.mode} mode" + (", smoke durations" if opts.smoke else "")
    names = {str(n): name for n, name, _, _ in BENCHES}
    names.update({name: name for _, name, _, _ in BENCHES})
    names.update(BENCH_ALIASES)
    only = []
    for x in filter(None, (s.strip() for s in opts.only.split(","))):
        if x not in names:
            ap.error(f"unknown benchmark {x!r}; known: "
                     + ", ".join(f"{n}={name}" for n, name, _, _ in BENCHES))
        if names[x] not in only:
            only.append(names[x])
    opts.only = only
    wanted = [s.strip() for s in opts.servers.split(",") if s.strip()]
    for s in wanted:
        if s not in SERVERS:
            ap.error(f"unknown server {s!r}")

    run_dir = opts.run_dir
    os.makedirs(run_dir, exist_ok=True)
    pidfile = PidFile(os.path.join(run_dir, "servers.pid"))
    servers = {}
    if TG in wanted:
        tg = TgServer(run_dir, pidfile, opts.tg_bin)
        if not tg.binary_ok:
            tg.error = opts.tg_build_error or f"{opts.tg_bin} does not exist"
        servers[TG] = tg
    if PG in wanted:
        need = max(cfg["idle_K"]) if (not only or "idle" in only) else 0
        pg_max = opts.pg_max_connections or max(1100, min(need, 10000) + 1000)
        pg = PgServer(run_dir, pidfile, pg_max)
        servers[PG] = pg

    opts.load_start = read_file("/proc/loadavg").split(" ")[:3]
    suite = Suite(opts, cfg, servers, run_dir)
    started = datetime.datetime.now()

    stopping = {"flag": False}

    def on_signal(signum, frame):
        # The first Ctrl-C / SIGTERM ends the run (servers stopped, partial report written);
        # later ones are ignored so that the clean-up is not interrupted.
        if stopping["flag"]:
            return
        stopping["flag"] = True
        if CURRENT_CHILD is not None and CURRENT_CHILD.poll() is None:
            CURRENT_CHILD.terminate()
        raise KeyboardInterrupt()

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)

    try:
        log(f"== threadgres benchmark suite: {opts.mode_name}, {cfg['reps']} repetition(s) "
            f"({cfg['reps_short']} for short points), "
            f"results in {run_dir}")
        log(f"== load average now: {' '.join(opts.load_start)} ({CORES} cores)")
        if PG in servers:
            pg = servers[PG]
            if not pg.start():
                pg.start_failures += 1
            else:
                log(f"== PostgreSQL on port {pg.port}: {pg.version}")
                log("== NOTE: both servers commit durably (synchronous_commit = on, fsync = "
                    f"on). PostgreSQL max_connections = {pg.max_connections}.")
                log("== PostgreSQL non-default settings: " + ", ".join(
                    f"{r[0]}={r[1]}" + (f" ({r[2]})" if len(r) > 2 and r[2] else "")
                    for r in pg.settings))
        if TG in servers:
            tg = servers[TG]
            if tg.binary_ok and tg.start():
                tg.start_failures = 0
                log(f"== threadgres on port {tg.port}: {' '.join(tg.command())}")
            else:
                tg.start_failures += 1
                log(f"== threadgres unavailable ({tg.error}); its points are marked skipped "
                    "unless it starts on a later attempt")
        builders = {
            "pgbench": suite.points_pgbench,
            "pingpong": suite.points_pingpong,
            "multicast": suite.points_multicast,
            "wide-notify": suite.points_wide,
            "latency": suite.points_latency,
            "writers": suite.points_writers,
            "idle": suite.points_idle,
            "tables": suite.points_tables,
            "trigger-notify": suite.points_trigger_notify,
            "tpcc": lambda: tpcc.Tpcc(suite, BENCH_DIR, PG_BIN, Point, Outcome, run_cmd,
                                      log).points(cfg),
            "sysbench": lambda: sysbench.Sysbench(cfg, PG_BIN, Point, Outcome, run_cmd,
                                                  log).points(),
            "lock-wake": lambda: lockwake.points(cfg, Point, run_client),
            "gin": lambda: gin.Gin(cfg, PG_BIN, Point, Outcome, run_cmd, run_pgbench,
                                   log).points(),
            "trgm": lambda: trgm.Trgm(cfg, PG_BIN, Point, Outcome, run_cmd, run_pgbench,
                                      log).points(),
        }
        plan = []
        for _, name, _, implemented in BENCHES:
            if only and name not in only:
                continue
            if not implemented:
                log(f"== benchmark {name}: {PLACEHOLDER_REASON[name]}")
                continue
            pts = builders[name]()
            if name == "latency":
                for p in pts:
                    p.run = (lambda f: (lambda srv: flatten_latency(f(srv))))(p.run)
            plan.append((name, pts))
        progress = {"n": 0, "t0": time.time(),
                    "total": sum(point_reps(cfg, p) for _, pts in plan for p in pts)
                    * len(servers)}
        for name, pts in plan:
            log(f"== benchmark {name}: {len(pts)} point(s)")
            suite.run_points(pts, progress)
    except KeyboardInterrupt:
        stopping["flag"] = True
        suite.interrupted = True
        log("!! interrupted; stopping servers and writing what was measured")
    finally:
        stopping["flag"] = True
        for s in servers.values():
            try:
                s.stop()
            except Exception as e:  # noqa: BLE001
                log(f"!! stopping {s.name}: {e}")
        for s in servers.values():
            s.cleanup()
    stopping["flag"] = True
    for s in servers.values():
        if s.error and not s.available:
            suite.notes.append(f"{LABEL[s.name]}: {s.error or 'restarted'}")
    if TG in servers and servers[TG].binary_ok:
        suite.notes.append(shard_weight_note(servers[TG].run_dir))
    suite.close()
    finished = datetime.datetime.now()
    meta = collect_meta(suite, opts, servers, started, finished)
    with open(os.path.join(run_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    plots = make_plots(suite.runs, run_dir, meta["notes"])
    text = write_report(suite.runs, meta, run_dir, plots)
    log("")
    log(text)
    return 130 if suite.interrupted else 0


def replot(run_dir):
    """Rebuilds report.md and the plots of an earlier run from raw.jsonl and meta.json."""
    with open(os.path.join(run_dir, "meta.json")) as f:
        meta = json.load(f)
    runs = []
    with open(os.path.join(run_dir, "raw.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            runs.append({k: r[k] for k in ("time", "bench", "point", "series", "x", "server",
                                           "rep", "status", "error")}
                        | {"metrics": r.get("metrics") or {}})
    plots = make_plots(runs, run_dir, meta["notes"])
    print(write_report(runs, meta, run_dir, plots))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--replot":
        sys.exit(replot(sys.argv[2]))
    sys.exit(main())
