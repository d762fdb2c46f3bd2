"""--max-memory (src/memory.rs): a statement that would grow the server past its bound fails with
53200 `out of memory` and rolls back; the server and its other sessions go on, and once rows are
removed and reclaimed, writes succeed again. threadgres-only (PostgreSQL has no such bound: the
kernel kills a backend instead)."""

from __future__ import annotations

import time

import pytest

import pgwire
import servers

TG = pytest.mark.parametrize("server", ["threadgres"], indirect=True)

BATCH = "INSERT INTO mem_t SELECT g, repeat('x', 1000) FROM generate_series(1, 20000) g"


@pytest.fixture
def bounded(tmp_root):
    p = servers.ThreadgresProcess(servers.threadgres_binary(), tmp_root / "bounded",
                                  extra_args=("--max-memory", "250MB", "--autovacuum-naptime-ms", "50"),
                                  name="threadgres-bounded")
    p.start()
    yield p
    p.stop()


@TG
def test_writes_past_the_memory_bound_fail_cleanly(server, bounded):
    c = bounded.info.connect_raw()
    other = bounded.info.connect_raw()
    c.simple("CREATE TABLE mem_t (id int, pad text)")
    ok = 0
    err = None
    for _ in range(60):  # 60 x 20 MB of rows is far past 250 MB
        try:
            c.simple(BATCH)
            ok += 1
        except pgwire.ServerError as e:
            err = e
            break
    assert err is not None, "no statement was refused"
    assert (err.fields.get("C"), err.fields.get("M")) == ("53200", "out of memory"), err.fields
    assert "--max-memory" in err.fields.get("D", "")
    # The refused statement left nothing behind; the server and other sessions go on.
    assert c.simple("SELECT count(*) FROM mem_t") == [(str(ok * 20000),)]
    assert other.simple("SELECT 'still here'") == [("still here",)]
    # Removing rows makes room again once they are reclaimed.
    c.simple("TRUNCATE mem_t")
    deadline = time.monotonic() + 15
    while True:
        try:
            c.simple("INSERT INTO mem_t SELECT g, repeat('x', 1000) FROM generate_series(1, 1000) g")
            break
        except pgwire.ServerError as e:
            assert e.fields.get("C") == "53200", e.fields
            assert time.monotonic() < deadline, "no room after TRUNCATE"
            time.sleep(0.2)
    assert c.simple("SELECT count(*) FROM mem_t") == [("1000",)]
    c.close()
    other.close()
