"""Benchmark 16: trigram search through a GIN index and a partial-index lookup at 1 M rows
(issue 31), run by bench/harness.py.

Each server gets two tables, made server-side with generate_series and analyzed:

- `trgm_docs(id int, t text)`, `t` three numbers of the row (`g || ' ' || g * 7919 % 1000003
  || ' ' || g * 104729 % 999983`), with pg_trgm's GIN index (`gin_trgm_ops`);
- `trgm_orders(id int, customer int, status text, amount int)`, customer `g % 100000`, status
  'open' for two of each customer's ten orders and 'closed' for the others, with a partial
  index `ON trgm_orders (customer) WHERE status = 'open'`.

The load and the index builds are timed once per server. Then pgbench runs three custom
scripts, K random in 1..rows (a literal, so that both planners see the constant):

- `similar`: `SELECT id FROM trgm_docs WHERE t % 'K'` (the row whose first number is K, and
  any other as similar: a bitmap scan over the trigram index, rechecked);
- `like`: `SELECT id FROM trgm_docs WHERE t LIKE '%K%'` (rows with K's digits in a row);
- `partial`: `SELECT id, amount FROM trgm_orders WHERE customer = K % 100000 AND status =
  'open'` (two rows, through the partial index),

at 1 and 8 clients, simple protocol.
"""

import os
import tempfile

import gin

# Metrics shown in the report: key -> (label, unit, higher_is_better)
METRICS = {
    "tps": ("queries/s", "1/s", True),
    "latency_ms": ("latency avg", "ms", False),
    "load_s": ("load (two INSERT ... SELECT generate_series)", "s", False),
    "index_s": ("CREATE INDEX (gin_trgm_ops and the partial one)", "s", False),
}
TABLE_METRICS = list(METRICS)

NOTES = ("`trgm_docs(id int, t text)` with N rows `t = g || ' ' || g*7919 % 1000003 || ' ' || "
         "g*104729 % 999983` and `CREATE INDEX ... USING gin (t gin_trgm_ops)`; "
         "`trgm_orders(id, customer, status, amount)` with N rows, customer g % 100000, status "
         "'open' for 2 of each customer's 10 orders, and `CREATE INDEX ... (customer) WHERE "
         "status = 'open'`; both made by INSERT ... SELECT over generate_series and analyzed "
         "(load and index builds timed once per server). Queries: `pgbench -n -M simple -f "
         "<script> -c C -j min(C, 2) -T T` with `\\set k random(1, N)` and: similar `SELECT id "
         "FROM trgm_docs WHERE t % ':k'`; like `SELECT id FROM trgm_docs WHERE t LIKE '%:k%'` "
         "(both a Bitmap Heap Scan over a Bitmap Index Scan of the trigram index on both "
         "servers); partial `SELECT id, amount FROM trgm_orders WHERE customer = :k % 100000 AND "
         "status = 'open'` (an Index Scan of the partial index on both servers).")

SCRIPTS = {
    "similar": "\\set k random(1, {rows})\nSELECT id FROM trgm_docs WHERE t % ':k';\n",
    "like": "\\set k random(1, {rows})\nSELECT id FROM trgm_docs WHERE t LIKE '%:k%';\n",
    "partial": "\\set k random(1, {rows})\n\\set c :k % 100000\n"
               "SELECT id, amount FROM trgm_orders WHERE customer = :c AND status = 'open';\n",
}

LOAD_SQL = (
    "CREATE EXTENSION IF NOT EXISTS pg_trgm; "
    "DROP TABLE IF EXISTS trgm_docs; DROP TABLE IF EXISTS trgm_orders; "
    "CREATE TABLE trgm_docs (id int, t text); "
    "INSERT INTO trgm_docs SELECT g, g || ' ' || (g::int8 * 7919 % 1000003) || ' ' || "
    "(g::int8 * 104729 % 999983) FROM generate_series(1, {rows}) g; "
    "CREATE TABLE trgm_orders (id int PRIMARY KEY, customer int, status text, amount int); "
    "INSERT INTO trgm_orders SELECT g, g % 100000, "
    "CASE WHEN (g / 100000) % 5 = 0 THEN 'open' ELSE 'closed' END, g % 997 "
    "FROM generate_series(1, {rows}) g")
INDEX_SQL = ("CREATE INDEX trgm_docs_t ON trgm_docs USING gin (t gin_trgm_ops); "
             "CREATE INDEX trgm_orders_open ON trgm_orders (customer) WHERE status = 'open'; "
             "ANALYZE trgm_docs; ANALYZE trgm_orders")


class Trgm(gin.Gin):
    """The gin target's loading and psql helpers, with this target's tables and scripts."""
    LOAD_SQL = LOAD_SQL
    INDEX_SQL = INDEX_SQL
    LOADING = "2 x {rows} rows"

    def __init__(self, cfg, pg_bin, point_cls, outcome_cls, run_cmd, run_pgbench, log):
        super().__init__(cfg, pg_bin, point_cls, outcome_cls, run_cmd, run_pgbench, log)
        self.scripts = {}

    def script_path(self, kind, rows):
        if kind not in self.scripts:
            fd, path = tempfile.mkstemp(prefix=f"trgm_{kind}_", suffix=".sql")
            with os.fdopen(fd, "w") as f:
                f.write(SCRIPTS[kind].format(rows=rows))
            self.scripts[kind] = path
        return self.scripts[kind]

    def points(self):
        rows = self.cfg["trgm_rows"]
        T = self.cfg["trgm_T"]
        series = {"similar": "t % 'K' through gin_trgm_ops",
                  "like": "t LIKE '%K%' through gin_trgm_ops",
                  "partial": "partial index point lookup"}
        pts = []
        for kind in ("similar", "like", "partial"):
            for n in self.cfg["trgm_clients"]:
                def run(srv, n=n, kind=kind):
                    try:
                        loads = self.ensure(srv, rows)
                    except Exception as e:  # noqa: BLE001 - recorded as the point's error
                        return self.Outcome("error", error=f"loading the tables failed: {e}")
                    out = self.run_pgbench(srv.port, self.script_path(kind, rows), "simple", n,
                                           min(n, 2), T=T)
                    if out.status == "ok":
                        out.metrics.update(loads)
                    return out
                pts.append(self.Point("trgm", f"{kind} C={n}",
                                      dict(rows=rows, clients=n, jobs=min(n, 2), T=T,
                                           mode="simple", query=kind),
                                      run, x=n, series=series[kind]))
        return pts
