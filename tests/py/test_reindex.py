"""REINDEX between sessions (both servers): it waits for the writers that hold the table,
its new index holds what they wrote, and readers are not held up while it waits.
Statement-by-statement behaviour is in diff/reindex.sql."""

from __future__ import annotations

import threading


def test_reindex_waits_for_a_writer_and_keeps_its_rows(server):
    a = server.connect_raw()
    b = server.connect_raw()
    c = server.connect_raw()
    try:
        a.simple("DROP TABLE IF EXISTS reindex_wait")
        a.simple("CREATE TABLE reindex_wait (id int PRIMARY KEY, v text)")
        a.simple("CREATE INDEX reindex_wait_v ON reindex_wait (v)")
        a.simple("INSERT INTO reindex_wait SELECT g, 'v' || g FROM generate_series(1, 2000) g")
        a.simple("BEGIN")
        a.simple("INSERT INTO reindex_wait VALUES (5000, 'late')")
        done = threading.Event()
        errors: list = []

        def reindex():
            try:
                b.simple("REINDEX TABLE reindex_wait")
            except Exception as e:  # reported below
                errors.append(repr(e))
            done.set()

        t = threading.Thread(target=reindex)
        t.start()
        # The writer's lock holds REINDEX back; readers go on meanwhile.
        assert not done.wait(0.7), "REINDEX did not wait for the writer"
        assert c.simple("SELECT count(*) FROM reindex_wait WHERE v = 'v7'") == [("1",)]
        a.simple("COMMIT")
        assert done.wait(20), "REINDEX did not finish after the writer committed"
        t.join()
        assert errors == []
        b.simple("SET enable_seqscan = off")
        assert b.simple("SELECT id FROM reindex_wait WHERE v = 'late'") == [("5000",)]
        assert b.simple("SELECT v FROM reindex_wait WHERE id = 5000") == [("late",)]
        b.simple("INSERT INTO reindex_wait VALUES (5001, 'later')")
        assert b.simple("SELECT id FROM reindex_wait WHERE v = 'later'") == [("5001",)]
        a.simple("DROP TABLE reindex_wait")
    finally:
        for x in (a, b, c):
            x.close()
