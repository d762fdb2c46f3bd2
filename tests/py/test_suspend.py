"""A statement that waits or runs long never holds its shard's thread (issue 19).

threadgres runs sessions as tasks on a few shard threads. A query that waits for another
transaction's row lock stops in the middle and the session awaits the other transaction on its
shard's event loop; a long query gives way every millisecond of work. These tests run a server
with one shard (`--worker-threads 1`), so every session shares one thread, and check that

* other sessions are answered while one waits for a row lock or runs a long scan,
* the waiting session shows wait event Lock / transactionid in pg_stat_activity,
* a wait adds no thread to the process (a wait under `block_in_place` would hand the shard to a
  fresh thread), in the simple and the extended protocol,
* cancel and statement_timeout end a waiting statement, and what is queued behind a waiting
  statement in the same Query runs after it,
* a client that goes away while its statement runs or waits is noticed: its session ends.

PostgreSQL has no counterpart (a backend per connection), so these are threadgres-only.
"""

from __future__ import annotations

import time

import pytest

import pgwire
import servers
from polling import wait_until

TG = pytest.mark.parametrize("server", ["threadgres"], indirect=True)


@pytest.fixture
def one_shard(tmp_root):
    p = servers.ThreadgresProcess(servers.threadgres_binary(), tmp_root / "one-shard",
                                  extra_args=("--worker-threads", "1"), name="threadgres-one-shard")
    p.start()
    yield p
    p.stop()


def threads(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    raise AssertionError("no Threads line")


def activity(c: pgwire.Conn, pattern: str) -> list[tuple]:
    return c.simple(
        "SELECT wait_event_type, wait_event, state FROM pg_stat_activity "
        f"WHERE query LIKE '{pattern}' AND pid <> pg_backend_pid()")


def setup_table(c: pgwire.Conn, name: str):
    c.simple(f"DROP TABLE IF EXISTS {name}")
    c.simple(f"CREATE TABLE {name} (id int PRIMARY KEY, v int)")
    c.simple(f"INSERT INTO {name} VALUES (1, 0), (2, 0)")


@TG
@pytest.mark.parametrize("protocol", ["simple", "extended"])
def test_row_lock_wait_leaves_the_shard_free(server, one_shard, protocol):
    info = one_shard.info
    admin = info.connect_raw()
    setup_table(admin, "susp_w")
    holder = info.connect_raw()
    holder.simple("BEGIN")
    holder.simple("UPDATE susp_w SET v = 1 WHERE id = 1")
    before = threads(one_shard.proc.pid)

    waiters = []
    for i in range(5):
        w = info.connect_raw()
        if protocol == "simple":
            w.send_query(f"UPDATE susp_w SET v = v + 10 WHERE id = 1; SELECT 'after {i}'")
        else:
            w.parse("", "UPDATE susp_w SET v = v + 10 WHERE id = $1", [23])
            w.bind("", "", params=["1"])
            w.execute("")
            w.send_sync()
        waiters.append(w)
    wait_until(lambda: len([r for r in activity(admin, "UPDATE susp_w SET v = v + 10%")
                            if r[:2] == ("Lock", "transactionid")]) == 5,
               "five sessions shown waiting for a transaction")
    # The one shard thread still serves everyone else, and no thread was added for the waits.
    assert admin.simple("SELECT 'still answered'") == [("still answered",)]
    assert threads(one_shard.proc.pid) == before
    early = [[m for m in w.read_available(0.1) if m.type in "CEZ"] for w in waiters]
    assert not any(early), f"a waiter finished before the holder ended: {early}"

    holder.simple("COMMIT")
    for i, w in enumerate(waiters):
        msgs = w.read_until_ready(timeout=10)
        tags = [m.fields for m in msgs if m.type == "C"]
        assert not [m for m in msgs if m.type == "E"], msgs
        assert tags[0] == "UPDATE 1", msgs
        assert len(tags) == (2 if protocol == "simple" else 1), msgs
    assert admin.simple("SELECT v FROM susp_w WHERE id = 1") == [("51",)]
    for c in waiters + [holder, admin]:
        c.close()


@TG
def test_cancel_and_timeout_end_a_wait(server, one_shard):
    info = one_shard.info
    admin = info.connect_raw()
    setup_table(admin, "susp_c")
    holder = info.connect_raw()
    holder.simple("BEGIN")
    holder.simple("UPDATE susp_c SET v = 1 WHERE id = 2")

    timed = info.connect_raw()
    timed.simple("SET statement_timeout = 300")
    t0 = time.monotonic()
    msgs = timed.query("UPDATE susp_c SET v = 2 WHERE id = 2")
    err = [m for m in msgs if m.type == "E"]
    assert err and err[0].sqlstate == "57014", msgs
    assert time.monotonic() - t0 < 5
    assert timed.simple("SELECT 'usable'") == [("usable",)]

    canceled = info.connect_raw()
    canceled.send_query("UPDATE susp_c SET v = 3 WHERE id = 2")
    wait_until(lambda: ("Lock", "transactionid", "active") in activity(admin, "UPDATE susp_c SET v = 3%"),
               "the session is shown waiting")
    admin.simple("SELECT pg_cancel_backend(pid) FROM pg_stat_activity "
                 "WHERE query LIKE 'UPDATE susp_c SET v = 3%'")
    msgs = canceled.read_until_ready(timeout=5)
    err = [m for m in msgs if m.type == "E"]
    assert err and err[0].sqlstate == "57014", msgs
    assert canceled.simple("SELECT 'usable'") == [("usable",)]
    holder.simple("COMMIT")
    assert admin.simple("SELECT v FROM susp_c WHERE id = 2") == [("1",)]
    for c in (holder, timed, canceled, admin):
        c.close()


@TG
def test_long_query_gives_way_and_disconnect_is_noticed(server, one_shard):
    info = one_shard.info
    admin = info.connect_raw()
    long = info.connect_raw()
    long.send_query("SELECT count(*) FROM generate_series(1, 2000000000)")
    wait_until(lambda: activity(admin, "SELECT count(*) FROM generate_series(1, 2000000000)%"),
               "the long query is shown running")
    t0 = time.monotonic()
    assert admin.simple("SELECT 'answered meanwhile'") == [("answered meanwhile",)]
    assert time.monotonic() - t0 < 2
    long.sock.close()
    wait_until(lambda: not activity(admin, "SELECT count(*) FROM generate_series(1, 2000000000)%"),
               "the session of a client that went away ends", timeout=5)

    # The same for a session waiting for a row lock.
    setup_table(admin, "susp_d")
    holder = info.connect_raw()
    holder.simple("BEGIN")
    holder.simple("UPDATE susp_d SET v = 1 WHERE id = 1")
    gone = info.connect_raw()
    gone.send_query("UPDATE susp_d SET v = 2 WHERE id = 1")
    wait_until(lambda: activity(admin, "UPDATE susp_d SET v = 2%"), "the waiter is shown")
    gone.sock.close()
    wait_until(lambda: not activity(admin, "UPDATE susp_d SET v = 2%"),
               "the waiting session of a client that went away ends", timeout=5)
    holder.simple("COMMIT")
    assert admin.simple("SELECT v FROM susp_d WHERE id = 1") == [("1",)]
    holder.close()
    admin.close()


@TG
def test_copy_to_streams_past_the_result_bound(server, one_shard):
    """COPY TO STDOUT sends rows as they are made: 1.2 GB of output goes out although a result
    held whole is bounded at 1 GB (54000); meanwhile another session is answered."""
    info = one_shard.info
    c = info.connect_raw()
    other = info.connect_raw()
    c.send_query("COPY (SELECT repeat('x', 1000) FROM generate_series(1, 1200000)) TO STDOUT")
    rows = 0
    answered = False
    while True:
        m = c.recv(timeout=120)
        if m.type == "d":
            rows += 1
            if rows == 1000 and not answered:
                assert other.simple("SELECT 'meanwhile'") == [("meanwhile",)]
                answered = True
        elif m.type == "E":
            raise AssertionError(f"COPY failed: {m.fields}")
        elif m.type == "C":
            assert m.fields == "COPY 1200000"
        elif m.type == "Z":
            break
    assert rows == 1200000 and answered
    c.close()
    other.close()


@TG
def test_commit_flush_wait_leaves_the_shard_free(server, one_shard):
    """A durable commit awaits its flush as a stopped session (issue 29): no thread is handed
    the shard for it, and what follows the commit (ReadyForQuery, the rest of a simple Query,
    pipelined transactions) comes after it, in order, with every commit there."""
    info = one_shard.info
    admin = info.connect_raw()
    admin.simple("DROP TABLE IF EXISTS susp_commit")
    admin.simple("CREATE TABLE susp_commit (k text, n int)")
    conns = [info.connect_raw() for _ in range(4)]
    # A pool thread a schema commit used (it waits in place) is gone after tokio's 10 s
    # keep-alive; a commit that waited under block_in_place would start one again.
    time.sleep(11)
    before = threads(one_shard.proc.pid)
    for round_ in range(20):
        for i, c in enumerate(conns):
            key = f"c{i}"
            # Autocommit, an explicit block, and statements after COMMIT in one Query.
            assert c.simple(f"INSERT INTO susp_commit VALUES ('{key}', {round_ * 10 + 1})") == []
            msgs = c.query(f"BEGIN; INSERT INTO susp_commit VALUES ('{key}', {round_ * 10 + 2}); "
                           f"COMMIT; SELECT count(*) FROM susp_commit WHERE k = '{key}'")
            assert [m.fields for m in msgs if m.type == "C"] == ["BEGIN", "INSERT 0 1", "COMMIT", "SELECT 1"], msgs
            assert pgwire.rows(msgs) == [(str(round_ * 4 + 2),)], msgs
            # Two extended-protocol transactions pipelined in one write: each commits at its
            # Sync, and the second is read only after the first's commit.
            for n in (3, 4):
                c.parse("", "INSERT INTO susp_commit VALUES ($1, $2)", [25, 23])
                c.bind("", "", params=[key, str(round_ * 10 + n)])
                c.execute("")
                c._wbuf += pgwire.frame(b"S", b"")
            c.push()
            first = c.read_until_ready(timeout=10)
            second = c.read_until_ready(timeout=10)
            for msgs in (first, second):
                assert [m.type for m in msgs if m.type in "CEZ"] == ["C", "Z"], msgs
    assert threads(one_shard.proc.pid) == before
    got = admin.simple("SELECT k, count(*), sum(n) FROM susp_commit GROUP BY k ORDER BY k")
    want = [(f"c{i}", "80", str(sum(r * 40 + 10 for r in range(20)))) for i in range(4)]
    assert got == want
    for c in conns + [admin]:
        c.close()
