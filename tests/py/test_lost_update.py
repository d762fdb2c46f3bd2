"""No lost update under READ COMMITTED with many writers on a few rows (both servers).

Each writer runs transactions that take an amount from a row and give it back in a second
UPDATE of the same row, so every balance must end where it started. A writer that follows a
row to the version a concurrent transaction made must never, in its next statement, read the
older version as current and overwrite the newer one. threadgres once did: a commit whose
CSN the visible watermark had not yet passed (an earlier committer between its flush and its
publication) was already "committed" on the row, so the follower updated the newer version
and its next statement's snapshot did not see it (`txn` invariant 7). The race needs at least
three sessions at once on the same row.

The workload is a race: a pass proves nothing by itself, but the broken server lost updates in
every run of this size.
"""

from __future__ import annotations

import random
import threading
import time

import pytest

import pgwire

WRITERS = 4
ROWS = 2
SECONDS = 2.5


def _writer(info, w: int, stop: threading.Event, done: list, failures: list) -> None:
    rnd = random.Random(w)
    c = info.connect_raw()
    try:
        while not stop.is_set():
            k = rnd.randrange(ROWS)
            d = rnd.randrange(1, 100)
            c.simple("BEGIN")
            c.simple(f"UPDATE lost_update SET balance = balance - {d} WHERE id = {k}")
            c.simple(f"UPDATE lost_update SET balance = balance + {d} WHERE id = {k}")
            c.simple("COMMIT")
            done[w] += 1
    except pgwire.PgWireError as e:  # every statement here must succeed
        failures.append(repr(e))
    finally:
        c.close()


def test_no_update_is_lost_when_a_writer_follows_a_newer_version(server):
    c = server.connect_raw()
    try:
        c.simple("DROP TABLE IF EXISTS lost_update")
        c.simple("CREATE TABLE lost_update (id int PRIMARY KEY, balance int NOT NULL)")
        c.simple(f"INSERT INTO lost_update SELECT g, 0 FROM generate_series(0, {ROWS - 1}) g")
        stop = threading.Event()
        done = [0] * WRITERS
        failures: list = []
        threads = [threading.Thread(target=_writer, args=(server, w, stop, done, failures))
                   for w in range(WRITERS)]
        for t in threads:
            t.start()
        time.sleep(SECONDS)
        stop.set()
        for t in threads:
            t.join(30)
        assert failures == []
        assert all(n > 0 for n in done), done
        rows = c.simple("SELECT id, balance FROM lost_update ORDER BY id")
        assert rows == [(str(k), "0") for k in range(ROWS)], (rows, done)
    finally:
        c.simple("DROP TABLE IF EXISTS lost_update")
        c.close()
