"""The background vacuum (src/autovacuum.rs): dead row versions are reclaimed without VACUUM,
never below a snapshot still in use. threadgres-only: PostgreSQL's autovacuum runs on its own
schedule (autovacuum_naptime, 60 s), so the two cannot be compared step by step.
"""

from __future__ import annotations

import pytest

import servers
from polling import wait_until

TG = pytest.mark.parametrize("server", ["threadgres"], indirect=True)


@pytest.fixture
def fast_vacuum(tmp_root):
    p = servers.ThreadgresProcess(servers.threadgres_binary(), tmp_root / "autovacuum",
                                  extra_args=("--autovacuum-naptime-ms", "50"), name="threadgres-autovacuum")
    p.start()
    yield p
    p.stop()


def autovacuums(c, table: str) -> int:
    return int(c.simple(f"SELECT autovacuum_count FROM pg_stat_user_tables WHERE relname = '{table}'")[0][0])


@TG
def test_background_vacuum_keeps_what_snapshots_see(server, fast_vacuum):
    info = fast_vacuum.info
    w = info.connect_raw()
    w.simple("CREATE TABLE av_t (id int PRIMARY KEY, v int)")
    w.simple("INSERT INTO av_t SELECT g, 0 FROM generate_series(1, 200) g")
    # A REPEATABLE READ reader fixes its snapshot before the updates.
    r = info.connect_raw()
    r.simple("BEGIN ISOLATION LEVEL REPEATABLE READ")
    assert r.simple("SELECT sum(v), count(*) FROM av_t") == [("0", "200")]
    before = autovacuums(w, "av_t")
    for i in range(20):
        w.simple("UPDATE av_t SET v = v + 1")
    wait_until(lambda: autovacuums(w, "av_t") > before, "the background vacuum visits the table")
    # The versions the reader's snapshot sees were kept; the writer sees the newest.
    assert r.simple("SELECT sum(v), count(*) FROM av_t") == [("0", "200")]
    assert r.simple("SELECT v FROM av_t WHERE id = 7") == [("0",)]
    r.simple("COMMIT")
    assert w.simple("SELECT sum(v), count(*) FROM av_t") == [("4000", "200")]
    # Once no snapshot needs them, a later round reclaims them: the table keeps working.
    seen = autovacuums(w, "av_t")
    for i in range(20):
        w.simple("UPDATE av_t SET v = v - 1 WHERE id % 2 = 0")
    wait_until(lambda: autovacuums(w, "av_t") > seen, "another round")
    assert w.simple("SELECT sum(v), count(*), min(v), max(v) FROM av_t") == [("2000", "200", "0", "20")]
    stats = w.simple("SELECT n_tup_ins, n_tup_upd, n_tup_del, last_autovacuum IS NOT NULL "
                     "FROM pg_stat_user_tables WHERE relname = 'av_t'")
    assert stats == [("200", str(20 * 200 + 20 * 100), "0", "t")]
    w.simple("DROP TABLE av_t")
    r.close()
    w.close()
