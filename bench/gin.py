"""Benchmark 15: GIN jsonb containment at 1 M rows (issue 31), run by bench/harness.py.

Each server gets a table of `gin_rows` jsonb documents (`{"id": g, "grp": g % 100, "tags":
["t<g % 13>", "u<g % 17>"], "name": "n<g>"}`, made server-side with generate_series), a GIN
index over them (jsonb_ops, the default) and an ANALYZE; the load and the index build are timed
(untimed again when a server already holds the table from an earlier point of the run). Then
pgbench runs a custom script that looks one document up by containment, `SELECT id FROM
gin_docs WHERE doc @> '{"id": K}'` with K random in 1..gin_rows (a literal, so that both
planners see the constant and use the index: a bitmap scan over one posting list), at 1 and 8
clients, simple protocol.
"""

import os
import tempfile
import time

# Metrics shown in the report: key -> (label, unit, higher_is_better)
METRICS = {
    "tps": ("queries/s", "1/s", True),
    "latency_ms": ("latency avg", "ms", False),
    "load_s": ("load (INSERT ... SELECT generate_series)", "s", False),
    "index_s": ("CREATE INDEX ... USING gin", "s", False),
}
TABLE_METRICS = list(METRICS)

TABLE = "gin_docs"

NOTES = ("`gin_docs(id int, doc jsonb)` with N rows `{\"id\": g, \"grp\": g % 100, \"tags\": "
         "[\"t<g%13>\", \"u<g%17>\"], \"name\": \"n<g>\"}` made by one INSERT ... SELECT over "
         "generate_series, then `CREATE INDEX gin_docs_doc ON gin_docs USING gin (doc)` and "
         "ANALYZE (load and index build timed once per server); queries: `pgbench -n -M simple "
         "-f gin_contains.sql -c C -j min(C, 2) -T T` with `\\set k random(1, N)` and "
         "`SELECT id FROM gin_docs WHERE doc @> '{\"id\": :k}'` (one row each, through the GIN "
         "index on both servers: Bitmap Heap Scan over Bitmap Index Scan).")

SCRIPT = "\\set k random(1, {rows})\nSELECT id FROM gin_docs WHERE doc @> '{{\"id\": :k}}';\n"

LOAD_SQL = (
    "DROP TABLE IF EXISTS gin_docs; "
    "CREATE TABLE gin_docs (id int, doc jsonb); "
    "INSERT INTO gin_docs SELECT g, ('{{\"id\": ' || g || ', \"grp\": ' || (g % 100) || "
    "', \"tags\": [\"t' || (g % 13) || '\", \"u' || (g % 17) || '\"], \"name\": \"n' || g || "
    "'\"}}')::jsonb FROM generate_series(1, {rows}) g")
INDEX_SQL = "CREATE INDEX gin_docs_doc ON gin_docs USING gin (doc); ANALYZE gin_docs"


class Gin:
    # What ensure() loads (a subclass for another target names its own).
    LOAD_SQL = LOAD_SQL
    INDEX_SQL = INDEX_SQL
    LOADING = "{rows} jsonb documents"

    def __init__(self, cfg, pg_bin, point_cls, outcome_cls, run_cmd, run_pgbench, log):
        self.cfg = cfg
        self.pg_bin = pg_bin
        self.Point = point_cls
        self.Outcome = outcome_cls
        self.run_cmd = run_cmd
        self.run_pgbench = run_pgbench
        self.log = log
        # server name -> (process key, rows) of the table it holds, and the timings of its load
        self.ready = {}
        self.loads = {}
        self.script = None

    def key(self, srv):
        return srv.proc.pid if getattr(srv, "proc", None) is not None else srv.port

    def psql(self, srv, sql, timeout):
        cmd = [f"{self.pg_bin}/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
               "-p", str(srv.port), "-U", "postgres", "-d", "postgres", "-c", sql]
        t0 = time.time()
        r = self.run_cmd(cmd, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError(r.stderr.strip() or f"psql exit {r.returncode}")
        return time.time() - t0

    def ensure(self, srv, rows):
        """Loads the table and builds the index unless the server holds them; returns the
        timings of its load, or raises."""
        if self.ready.get(srv.name) == (self.key(srv), rows):
            return self.loads[srv.name]
        self.log(f"   loading {self.LOADING.format(rows=rows)} into {srv.name}")
        load_s = self.psql(srv, self.LOAD_SQL.format(rows=rows), timeout=1800)
        index_s = self.psql(srv, self.INDEX_SQL, timeout=1800)
        self.ready[srv.name] = (self.key(srv), rows)
        self.loads[srv.name] = {"load_s": load_s, "index_s": index_s}
        return self.loads[srv.name]

    def script_path(self, rows):
        if self.script is None:
            fd, path = tempfile.mkstemp(prefix="gin_contains_", suffix=".sql")
            with os.fdopen(fd, "w") as f:
                f.write(SCRIPT.format(rows=rows))
            self.script = path
        return self.script

    def points(self):
        rows = self.cfg["gin_rows"]
        T = self.cfg["gin_T"]
        pts = []
        for n in self.cfg["gin_clients"]:
            def run(srv, n=n):
                try:
                    loads = self.ensure(srv, rows)
                except Exception as e:  # noqa: BLE001 - recorded as the point's error
                    return self.Outcome("error", error=f"loading the table failed: {e}")
                out = self.run_pgbench(srv.port, self.script_path(rows), "simple", n,
                                       min(n, 2), T=T)
                if out.status == "ok":
                    out.metrics.update(loads)
                return out
            pts.append(self.Point("gin", f"contains C={n}",
                                  dict(rows=rows, clients=n, jobs=min(n, 2), T=T, mode="simple"),
                                  run, x=n, series="jsonb @> through GIN"))
        return pts
