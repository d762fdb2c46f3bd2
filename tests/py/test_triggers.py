"""Triggers where the differential scripts cannot reach, on PostgreSQL 15 and threadgres alike
(issue 32): COPY FROM fires row triggers (its direct load steps aside), and a BEFORE UPDATE
trigger whose row another transaction holds runs once, after the wait, on the row as that
transaction left it."""

from __future__ import annotations

import time

import pgwire


def setup(c, table: str) -> None:
    c.simple(f"DROP TABLE IF EXISTS {table}, {table}_log CASCADE")
    c.simple(f"CREATE TABLE {table} (id int PRIMARY KEY, v int, note text)")
    c.simple(f"CREATE TABLE {table}_log (seq serial, what text)")
    c.simple(
        f"CREATE OR REPLACE FUNCTION {table}_before() RETURNS trigger LANGUAGE plpgsql AS "
        f"$$ BEGIN INSERT INTO {table}_log (what) VALUES (TG_OP || ' ' || NEW.id || ' saw ' "
        f"|| coalesce(OLD.v::text, '-')); NEW.note := 'before:' || NEW.v; RETURN NEW; END $$")
    c.simple(
        f"CREATE OR REPLACE FUNCTION {table}_after() RETURNS trigger LANGUAGE plpgsql AS "
        f"$$ BEGIN INSERT INTO {table}_log (what) VALUES ('after ' || TG_OP || ' ' || NEW.id); "
        f"RETURN NULL; END $$")
    c.simple(f"CREATE TRIGGER b BEFORE INSERT OR UPDATE ON {table} FOR EACH ROW "
             f"EXECUTE FUNCTION {table}_before()")
    c.simple(f"CREATE TRIGGER a AFTER INSERT OR UPDATE ON {table} FOR EACH ROW "
             f"EXECUTE FUNCTION {table}_after()")


def teardown(c, table: str) -> None:
    c.simple(f"DROP TABLE {table}, {table}_log")
    c.simple(f"DROP FUNCTION {table}_before(), {table}_after()")


def test_copy_from_fires_row_triggers(server):
    c = server.connect_raw()
    setup(c, "trg_copy")
    c.send_query("COPY trg_copy (id, v) FROM STDIN")
    got = c.read_until("GE", timeout=10)
    assert got[-1].type == "G", got
    c.copy_data(b"1\t10\n2\t20\n3\t30\n").copy_done()
    c.push()
    msgs = c.read_until_ready(timeout=20)
    assert not [m for m in msgs if m.type == "E"], msgs
    assert c.simple("SELECT id, v, note FROM trg_copy ORDER BY id") == [
        ("1", "10", "before:10"), ("2", "20", "before:20"), ("3", "30", "before:30")]
    assert c.simple("SELECT what FROM trg_copy_log ORDER BY seq") == [
        ("INSERT 1 saw -",), ("INSERT 2 saw -",), ("INSERT 3 saw -",),
        ("after INSERT 1",), ("after INSERT 2",), ("after INSERT 3",)]
    teardown(c, "trg_copy")
    c.close()


def test_before_update_trigger_runs_once_after_a_lock_wait(server):
    a = server.connect_raw()
    b = server.connect_raw()
    setup(a, "trg_wait")
    a.simple("INSERT INTO trg_wait (id, v) VALUES (1, 1)")
    a.simple("DELETE FROM trg_wait_log")
    a.simple("BEGIN")
    a.simple("UPDATE trg_wait SET v = v + 1 WHERE id = 1")
    b.send_query("UPDATE trg_wait SET v = v + 10 WHERE id = 1")
    # b waits for a's row lock: it has not answered yet.
    time.sleep(0.5)
    a.simple("COMMIT")
    msgs = b.read_until_ready(timeout=20)
    assert not [m for m in msgs if m.type == "E"], msgs
    assert a.simple("SELECT v, note FROM trg_wait") == [("12", "before:12")]
    # b's BEFORE trigger ran once, on the version a committed.
    assert a.simple("SELECT what FROM trg_wait_log ORDER BY seq") == [
        ("UPDATE 1 saw 1",), ("after UPDATE 1",), ("UPDATE 1 saw 2",), ("after UPDATE 1",)]
    teardown(a, "trg_wait")
    a.close()
    b.close()
