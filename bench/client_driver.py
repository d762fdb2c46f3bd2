"""What the benchmarks that drive an outside client program share (benchmark 10, go-tpc, in
tpcc.py; benchmark 13, sysbench, in sysbench.py): which server process a loaded database
belongs to, and a psql call that fails loudly."""


class ClientDriver:
    """Base of Tpcc and Sysbench: needs `self.pg_bin` and `self.run_cmd`."""

    def key(self, srv):
        """The server's process id: a database loaded into an earlier process is gone."""
        return srv.proc.pid if hasattr(srv, "proc") and srv.proc else srv.postmaster_pid()

    def psql(self, srv, sql, db="postgres"):
        r = self.run_cmd([f"{self.pg_bin}/psql", "-h", "127.0.0.1", "-p", str(srv.port),
                          "-U", "postgres", "-d", db, "-AtX", "-c", sql], timeout=300)
        if r.returncode != 0:
            raise RuntimeError(f"psql {sql!r}: {r.stderr.strip()[-300:]}")
        return r.stdout
