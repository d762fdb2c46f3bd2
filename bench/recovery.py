#!/usr/bin/env python3
"""Issue 29's durability figures, threadgres beside PostgreSQL 15 in one run: tps over time
across checkpoints, then crash recovery (replay speed and the time to accept connections).

For each repetition and server (alternating), on a fresh server with durable commits
(`synchronous_commit = on`, `fsync = on`) and `checkpoint_timeout` = --checkpoint-timeout:

1. `pgbench -i -s S` (timed);
2. `pgbench -b tpcb-like -M simple -c C -j 2 -T D -P 1`: tps of every second, with the
   checkpoints each server logged (start and end) during the run;
3. the crash, at once after the run: threadgres gets SIGKILL; PostgreSQL `pg_ctl stop -m
   immediate` (SIGQUIT: every process exits without a checkpoint; killing only its postmaster
   with SIGKILL would leave its backends holding the shared memory, and it could not restart);
4. the restart on the same directory: the time from starting the server to the first
   `SELECT 1` answered, and what each logs about its replay (threadgres: `redo done at ...
   (N bytes of WAL ...) in T s`; PostgreSQL: `redo starts at A`, `redo done at B ... elapsed:
   T s`, the bytes are B - A): MB of WAL replayed per second. threadgres also rebuilds its
   indexes after replay (logged apart; part of the time to accept connections).

Writes report.md, raw.json and tps_over_time.png into --out. Run as root (PostgreSQL runs
as the `tgbench` user, as bench/run.sh makes it) or as a user that can run initdb.
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import time

PG_BIN = os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin")
PG_USER = "tgbench"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ, PGSSLMODE="disable", PGCONNECT_TIMEOUT="5")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_pg(cmd):
    return ["runuser", "-u", PG_USER, "--"] + cmd if os.geteuid() == 0 else cmd


def lsn(text):
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) | int(lo, 16)


def ready(port):
    r = subprocess.run([f"{PG_BIN}/psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
                        "-AtXc", "SELECT 1", "postgres"], env=ENV, capture_output=True,
                       text=True, timeout=30)
    return r.returncode == 0


def wait_ready(port, proc=None, limit=600):
    start = time.time()
    while time.time() - start < limit:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with status {proc.returncode}")
        if ready(port):
            return time.time() - start
        time.sleep(0.05)
    raise RuntimeError("server did not accept connections")


class Tg:
    name = "threadgres"

    def __init__(self, binary, ckpt_s):
        self.binary, self.ckpt_s = binary, ckpt_s
        self.dir = tempfile.mkdtemp(prefix="tgrec-")
        self.port = free_port()
        self.proc = None
        self.log = os.path.join(self.dir, "server.log")

    def start(self):
        f = open(self.log, "a")
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--listen", "127.0.0.1",
             "--data-dir", os.path.join(self.dir, "data"), "--log-level", "info",
             "--checkpoint-timeout", f"{self.ckpt_s}s", "--max-connections", "200"],
            stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        return wait_ready(self.port, self.proc)

    def crash(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(60)
        shutil.rmtree(self.dir, ignore_errors=True)

    def log_text(self):
        with open(self.log, errors="replace") as f:
            return f.read()

    def checkpoints(self, text):
        """(start, end) wall times of the timed checkpoints logged."""
        out = []
        for m in re.finditer(r"^\S*?(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)Z.*checkpoint complete "
                             r"\((Timed|Wal)\).*total=([\d.]+) s", text, re.M):
            end = time.mktime(time.strptime(m.group(1)[:19], "%Y-%m-%dT%H:%M:%S")) \
                - time.timezone + float("0." + m.group(1)[20:])
            out.append((end - float(m.group(3)), end))
        return out

    def replay(self, text):
        m = re.findall(r"redo done at \S+: \d+ records \((\d+) bytes of WAL.*? in ([\d.]+) s", text)
        idx = re.findall(r"rebuilt \d+ indexes from the rows in ([\d.]+) s", text)
        if not m:
            return None
        b, s = m[-1]
        return {"wal_bytes": int(b), "redo_s": float(s),
                "index_s": float(idx[-1]) if idx else None}


class Pg:
    name = "PostgreSQL 15"

    def __init__(self, ckpt_s):
        self.dir = tempfile.mkdtemp(prefix="pgrec-")
        if os.geteuid() == 0:
            shutil.chown(self.dir, PG_USER, PG_USER)
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        self.log = os.path.join(self.dir, "server.log")
        subprocess.run(as_pg([f"{PG_BIN}/initdb", "-D", self.data, "-U", "postgres", "-A",
                              "trust", "-E", "UTF8"]), check=True, capture_output=True)
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write(f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
                    f"unix_socket_directories = '{self.dir}'\nmax_connections = 200\n"
                    f"checkpoint_timeout = {self.ckpt(ckpt_s)}s\nlog_checkpoints = on\n"
                    "log_line_prefix = '%m [%p] '\nlog_timezone = 'UTC'\n")

    @staticmethod
    def ckpt(s):
        return max(30, s)  # PostgreSQL's minimum

    def start(self):
        t = time.time()
        subprocess.run(as_pg([f"{PG_BIN}/pg_ctl", "-D", self.data, "-l", self.log, "start"]),
                       check=True, capture_output=True, start_new_session=True)
        wait_ready(self.port)
        return time.time() - t

    def crash(self):
        subprocess.run(as_pg([f"{PG_BIN}/pg_ctl", "-D", self.data, "-m", "immediate", "stop"]),
                       check=True, capture_output=True)

    def stop(self):
        subprocess.run(as_pg([f"{PG_BIN}/pg_ctl", "-D", self.data, "-m", "fast", "stop"]),
                       capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def log_text(self):
        with open(self.log, errors="replace") as f:
            return f.read()

    def checkpoints(self, text):
        out, start = [], None
        for m in re.finditer(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) UTC .*checkpoint "
                             r"(starting|complete)", text, re.M):
            t = time.mktime(time.strptime(m.group(1)[:19], "%Y-%m-%d %H:%M:%S")) \
                - time.timezone + float("0." + m.group(1)[20:])
            if m.group(2) == "starting":
                start = t
            elif start is not None:
                out.append((start, t))
                start = None
        return out

    def replay(self, text):
        a = re.findall(r"redo starts at ([0-9A-F]+/[0-9A-F]+)", text)
        b = re.findall(r"redo done at ([0-9A-F]+/[0-9A-F]+).*elapsed: ([\d.]+) s", text)
        if not a or not b:
            return None
        return {"wal_bytes": lsn(b[-1][0]) - lsn(a[-1]), "redo_s": float(b[-1][1]),
                "index_s": None}


def pgbench(port, args, timeout):
    return subprocess.run([f"{PG_BIN}/pgbench", "-h", "127.0.0.1", "-p", str(port), "-U",
                           "postgres"] + args + ["postgres"], env=ENV, capture_output=True,
                          text=True, timeout=timeout)


def one(srv, o):
    res = {"server": srv.name}
    srv.start()
    t = time.time()
    r = pgbench(srv.port, ["-i", "-s", str(o.scale)], timeout=3600)
    if r.returncode != 0:
        raise RuntimeError(f"pgbench -i failed on {srv.name}: {r.stderr[-500:]}")
    res["load_s"] = time.time() - t
    started = time.time()
    r = pgbench(srv.port, ["-b", "tpcb-like", "-M", "simple", "-c", str(o.clients), "-j", "2",
                           "-T", str(o.duration), "-P", "1"], timeout=o.duration + 600)
    if r.returncode != 0:
        raise RuntimeError(f"pgbench failed on {srv.name}: {r.stderr[-500:]}")
    res["tps"] = [(float(m.group(1)), float(m.group(2))) for m in
                  re.finditer(r"progress: ([\d.]+) s, ([\d.]+) tps", r.stderr)]
    m = re.search(r"^tps = ([\d.]+)", r.stdout, re.M)
    res["tps_total"] = float(m.group(1)) if m else None
    res["checkpoints"] = [(a - started, b - started) for a, b in srv.checkpoints(srv.log_text())
                          if b >= started]
    before = len(srv.log_text())
    srv.crash()
    res["accept_s"] = srv.start()
    res["replay"] = srv.replay(srv.log_text()[before:])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=10)
    ap.add_argument("--duration", type=int, default=75)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--checkpoint-timeout", type=int, default=30)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--tg-bin", default=os.path.join(REPO, "target", "release", "threadgres"))
    ap.add_argument("--out", default=os.path.join(
        REPO, "bench", "results", "recovery-" + time.strftime("%Y%m%d-%H%M%S")))
    o = ap.parse_args()
    os.makedirs(o.out, exist_ok=True)
    runs = []
    for rep in range(o.reps):
        for make in ((lambda: Tg(o.tg_bin, o.checkpoint_timeout)),
                     (lambda: Pg(o.checkpoint_timeout))):
            srv = make()
            try:
                r = one(srv, o)
                r["rep"] = rep
                runs.append(r)
                print(json.dumps({k: v for k, v in r.items() if k != "tps"}), flush=True)
            finally:
                srv.stop()
    with open(os.path.join(o.out, "raw.json"), "w") as f:
        json.dump({"args": vars(o), "load_avg": os.getloadavg(), "runs": runs}, f, indent=1)
    report(o, runs)


def report(o, runs):
    names = ["threadgres", "PostgreSQL 15"]

    def med(name, f):
        vals = [f(r) for r in runs if r["server"] == name and f(r) is not None]
        return statistics.median(vals) if vals else None

    def mbps(r):
        p = r.get("replay")
        return p["wal_bytes"] / 1e6 / p["redo_s"] if p and p["redo_s"] > 0 else None

    def low(r):
        # The lowest one-second rate in the run's second half, where checkpoints fall.
        v = [t for s, t in r["tps"] if s > o.duration / 3]
        return min(v) if v else None

    rows = [
        ("`pgbench -i -s {}` (s)".format(o.scale), lambda r: r["load_s"]),
        (f"tpcb-like, {o.clients} clients, {o.duration} s (tps)", lambda r: r["tps_total"]),
        ("lowest one-second tps after the first third", low),
        ("checkpoints during the run", lambda r: len(r["checkpoints"])),
        ("WAL replayed after the crash (MB)",
         lambda r: r["replay"]["wal_bytes"] / 1e6 if r.get("replay") else None),
        ("replay time (s)", lambda r: r["replay"]["redo_s"] if r.get("replay") else None),
        ("replay speed (MB of WAL per second)", mbps),
        ("index rebuild after replay (s)",
         lambda r: (r.get("replay") or {}).get("index_s")),
        ("start to first connection after the crash (s)", lambda r: r["accept_s"]),
    ]
    L = [f"# Durability: tps across checkpoints and crash recovery ({time.strftime('%Y-%m-%d')})",
         "", f"`python3 bench/recovery.py --scale {o.scale} --duration {o.duration} --clients "
         f"{o.clients} --checkpoint-timeout {o.checkpoint_timeout} --reps {o.reps}`; medians of "
         f"{o.reps} repetition(s), servers alternating; load average at the end "
         f"{os.getloadavg()[0]:.2f}. PostgreSQL's checkpoint_timeout is at least 30 s.", "",
         "| | threadgres | PostgreSQL 15 | ratio |", "|---|---:|---:|---:|"]
    for label, f in rows:
        t, p = med(names[0], f), med(names[1], f)
        ratio = f"{t / p:.2f}" if t is not None and p else ""
        fmt = (lambda v: "n/a" if v is None else (f"{v:,.0f}" if v >= 100 else f"{v:.3g}"))
        L.append(f"| {label} | {fmt(t)} | {fmt(p)} | {ratio} |")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 4))
        colors = {"threadgres": "tab:blue", "PostgreSQL 15": "tab:orange"}
        for name in names:
            r = next((r for r in runs if r["server"] == name), None)
            if not r:
                continue
            ax.plot([s for s, _ in r["tps"]], [t for _, t in r["tps"]], color=colors[name],
                    label=name)
            for a, b in r["checkpoints"]:
                ax.axvspan(max(a, 0), b, color=colors[name], alpha=0.15)
        ax.set_xlabel("seconds")
        ax.set_ylabel("tps (one-second intervals)")
        ax.set_title(f"durable tpcb-like, scale {o.scale}, {o.clients} clients "
                     "(shaded: checkpoints)")
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(o.out, "tps_over_time.png"), dpi=110)
        L += ["", "![tps over time](tps_over_time.png)"]
    except ImportError:
        L += ["", "(matplotlib is missing: no plot)"]
    with open(os.path.join(o.out, "report.md"), "w") as f:
        f.write("\n".join(L) + "\n")
    print("\n".join(L))
    print(f"results: {o.out}")


if __name__ == "__main__":
    main()
