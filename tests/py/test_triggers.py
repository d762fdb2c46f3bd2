"""Triggers where the differential scripts cannot reach, on PostgreSQL 15 and threadgres alike
(issue 32): COPY FROM fires row triggers (its direct load steps aside), and a BEFORE UPDATE
trigger whose row another transaction holds runs once, after the wait, on the row as that
transaction left it. threadgres only: a trigger with transition tables, and a constraint
trigger, are kept by a restart (clean and kill -9), and a statement's transition tables are
bounded (54000)."""

from __future__ import annotations

import time

import pytest

import pgwire
from test_durable import TG, restart_by


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


TRANSITION_SETUP = [
    "CREATE TABLE tr_t (a int PRIMARY KEY, b text)",
    "CREATE TABLE tr_log (n bigint, s text)",
    "CREATE FUNCTION tr_f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO tr_log "
    "SELECT count(*), string_agg(o.b || '>' || n.b, ',' ORDER BY n.a) FROM old_rows o "
    "JOIN \"New Rows\" n USING (a); RETURN NULL; END $$",
    "CREATE TRIGGER tr_u AFTER UPDATE ON tr_t REFERENCING OLD TABLE AS old_rows "
    "NEW TABLE AS \"New Rows\" FOR EACH STATEMENT EXECUTE FUNCTION tr_f()",
    "INSERT INTO tr_t VALUES (1, 'a'), (2, 'b')",
]
TRANSITION_CHECKS = [
    "SELECT tgname, tgoldtable, tgnewtable, pg_get_triggerdef(oid) FROM pg_trigger "
    "WHERE tgrelid = 'tr_t'::regclass",
]


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_restart_keeps_transition_table_triggers(server, tg_dedicated, how):
    """CREATE TRIGGER ... REFERENCING is kept by a clean restart and by log replay after a
    crash, and the trigger reads its transition tables afterwards."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    for q in TRANSITION_SETUP:
        c.simple(q)
    before = [c.simple(q) for q in TRANSITION_CHECKS]
    c.close()
    assert before[0][0][1:3] == ("old_rows", "New Rows"), before
    restart_by(p, how)
    c = p.info.connect_raw()
    assert [c.simple(q) for q in TRANSITION_CHECKS] == before
    c.simple("UPDATE tr_t SET b = upper(b)")
    assert c.simple("SELECT n, s FROM tr_log") == [("2", "a>A,b>B")]
    c.close()


CONSTRAINT_SETUP = [
    "CREATE TABLE ct_keep (a int)",
    "CREATE TABLE ct_keep_from (a int)",
    "CREATE TABLE ct_keep_log (what text)",
    "CREATE FUNCTION ct_keep_f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO "
    "ct_keep_log VALUES (TG_NAME || ' ' || NEW.a); RETURN NULL; END $$",
    "CREATE CONSTRAINT TRIGGER ct_keep_d AFTER INSERT ON ct_keep FROM ct_keep_from "
    "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ct_keep_f()",
    "CREATE CONSTRAINT TRIGGER ct_keep_i AFTER INSERT ON ct_keep FOR EACH ROW "
    "EXECUTE FUNCTION ct_keep_f()",
    "CREATE FUNCTION ct_keep_minus(int, int) RETURNS int LANGUAGE sql STRICT "
    "AS 'select $1 - $2'",
    "CREATE AGGREGATE ct_keep_sum(int) (sfunc = int4pl, stype = int, mstype = int, "
    "msfunc = int4pl, minvfunc = ct_keep_minus, finalfunc_modify = shareable)",
]
CONSTRAINT_CHECKS = [
    "SELECT tgname, tgconstrrelid::regclass::text, tgdeferrable, tginitdeferred, "
    "pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = 'ct_keep'::regclass ORDER BY 1",
    "SELECT conname, contype, condeferrable, condeferred FROM pg_constraint "
    "WHERE conrelid = 'ct_keep'::regclass ORDER BY 1",
    "SELECT aggfnoid::text, aggtransfn::text, aggmtransfn::text, aggminvtransfn::text, "
    "aggfinalmodify FROM pg_aggregate WHERE aggfnoid = 'ct_keep_sum'::regproc",
]


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_restart_keeps_constraint_triggers(server, tg_dedicated, how):
    """CREATE CONSTRAINT TRIGGER (its constraint, deferral and FROM table) and a user
    aggregate's moving-aggregate clauses are kept by a clean restart and by log replay after
    a crash; afterwards the deferred trigger still waits for the commit."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    for q in CONSTRAINT_SETUP:
        c.simple(q)
    before = [c.simple(q) for q in CONSTRAINT_CHECKS]
    c.close()
    assert before[0][0][1:4] == ("ct_keep_from", "t", "t"), before
    assert before[2] == [("ct_keep_sum", "int4pl", "int4pl", "ct_keep_minus", "s")], before
    restart_by(p, how)
    c = p.info.connect_raw()
    assert [c.simple(q) for q in CONSTRAINT_CHECKS] == before
    c.simple("BEGIN")
    c.simple("INSERT INTO ct_keep VALUES (1)")
    assert c.simple("SELECT what FROM ct_keep_log") == [("ct_keep_i 1",)]
    c.simple("COMMIT")
    assert c.simple("SELECT what FROM ct_keep_log") == [("ct_keep_i 1",), ("ct_keep_d 1",)]
    assert c.simple("SELECT ct_keep_sum(a) OVER () FROM ct_keep") == [("1",)]
    c.close()


@TG
def test_transition_tables_are_bounded(server):
    """A statement whose transition tables would pass the executor's per-operator memory bound
    (256 MB estimated) fails with 54000 instead of growing (PostgreSQL spills them to disk);
    the session goes on, and a smaller statement still fires the trigger."""
    c = server.connect_raw()
    c.simple("DROP TABLE IF EXISTS tr_big")
    c.simple("CREATE TABLE tr_big (a int, b text)")
    c.simple("CREATE OR REPLACE FUNCTION tr_big_f() RETURNS trigger LANGUAGE plpgsql AS "
             "$$ BEGIN RAISE NOTICE 'rows %', (SELECT count(*) FROM nt); RETURN NULL; END $$")
    c.simple("CREATE TRIGGER tr_big_t AFTER INSERT ON tr_big REFERENCING NEW TABLE AS nt "
             "FOR EACH STATEMENT EXECUTE FUNCTION tr_big_f()")
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("INSERT INTO tr_big SELECT g, repeat('x', 1000000) "
                 "FROM generate_series(1, 300) g")
    assert e.value.fields["C"] == "54000", e.value.fields
    assert e.value.fields["M"].startswith("Transition table storage exceeds"), e.value.fields
    assert c.simple("SELECT count(*) FROM tr_big") == [("0",)]
    c.simple("INSERT INTO tr_big SELECT g, 'y' FROM generate_series(1, 3) g")
    assert c.simple("SELECT count(*) FROM tr_big") == [("3",)]
    c.simple("DROP TABLE tr_big")
    c.simple("DROP FUNCTION tr_big_f()")
    c.close()
