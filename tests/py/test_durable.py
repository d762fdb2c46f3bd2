"""Durability (issue 29): the data directory, its lock, checkpoint images and what a restart
reads back. threadgres-only: each test starts its own server on its own data directory and
restarts it; PostgreSQL's behaviour (same objects after a restart) is the reference, checked
by comparing what the same queries return before and after.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

import pytest

import pgwire
import servers

TG = pytest.mark.parametrize("server", ["threadgres"], indirect=True)


def kill9(p: servers.ThreadgresProcess) -> None:
    p.proc.send_signal(signal.SIGKILL)
    p.proc.wait(10)


def restart_by(p, how):
    """Restarts `p` cleanly ("clean": it reads back its shutdown image) or by kill -9 and a
    start (anything else: it replays the log onto its last checkpoint)."""
    if how == "clean":
        p.restart()
    else:
        kill9(p)
        p.start()


# Every kind of object a restart must keep, made as a user would.
SETUP = [
    "CREATE SCHEMA app",
    "CREATE TABLE app.kinds (id int PRIMARY KEY, t text NOT NULL, n numeric(10,2), f float8, "
    "b bool, d date, ts timestamptz, iv interval, u uuid, j json, a int[], by bytea, "
    "ip inet, c char(5) DEFAULT 'x')",
    "INSERT INTO app.kinds VALUES (1, 'one', 1.25, 0.1, true, '2024-02-29', "
    "'2024-01-01 12:00+02', '1 day 2 hours', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', "
    "'{\"k\": [1, 2]}', '{1,NULL,3}', '\\x00ff', '10.0.0.1/8', 'ab')",
    "INSERT INTO app.kinds (id, t) SELECT g, 'row ' || g FROM generate_series(2, 3000) g",
    "CREATE UNIQUE INDEX kinds_t ON app.kinds (t)",
    "CREATE INDEX kinds_n ON app.kinds (n, id)",
    "CREATE UNIQUE INDEX kinds_lower_t ON app.kinds (lower(t)) WHERE id > 10",
    "CREATE INDEX kinds_mod ON app.kinds ((id % 7), t)",
    "CREATE INDEX kinds_h ON app.kinds USING hash (t)",
    "CREATE TABLE parent (id serial PRIMARY KEY, name varchar(20) UNIQUE)",
    "CREATE TABLE child (id int GENERATED ALWAYS AS IDENTITY, p int REFERENCES parent ON DELETE "
    "CASCADE, note text CHECK (note <> 'bad'))",
    "INSERT INTO parent (name) VALUES ('a'), ('b'), ('c')",
    "INSERT INTO child (p, note) VALUES (1, 'x'), (2, 'y'), (2, 'z')",
    "DELETE FROM parent WHERE name = 'c'",
    "UPDATE child SET note = 'w' WHERE note = 'z'",
    "CREATE TABLE altered (a int, b text, c int)",
    "INSERT INTO altered VALUES (1, 'one', 10), (2, 'two', 20)",
    "ALTER TABLE altered DROP COLUMN b",
    "ALTER TABLE altered ADD COLUMN e text DEFAULT 'dflt'",
    "ALTER TABLE altered RENAME TO renamed",
    "CREATE TABLE emptied (x int)",
    "INSERT INTO emptied VALUES (1), (2)",
    "TRUNCATE emptied",
    "INSERT INTO emptied VALUES (3)",
    "CREATE SEQUENCE seq START 100 INCREMENT 5",
    "SELECT nextval('seq'), nextval('seq')",
    "CREATE VIEW app.v AS SELECT id, t FROM app.kinds WHERE id <= 3",
    "COMMENT ON TABLE parent IS 'the parents'",
    "COMMENT ON COLUMN parent.name IS 'a name'",
    "COMMENT ON SCHEMA app IS 'application'",
    "CREATE ROLE reader LOGIN PASSWORD 'secret' VALID UNTIL '2100-01-01'",
    "CREATE ROLE grp",
    "GRANT grp TO reader",
    "GRANT USAGE ON SCHEMA app TO reader",
    "GRANT SELECT ON app.kinds TO grp",
    "GRANT SELECT (id) ON parent TO reader",
    "GRANT CREATE ON DATABASE postgres TO reader",
    "ALTER ROLE reader SET work_mem = '8MB'",
    "COMMENT ON ROLE grp IS 'a group'",
    "CREATE UNLOGGED TABLE scratch (k int)",
    "INSERT INTO scratch VALUES (7)",
    "CREATE FUNCTION app.addn(a int, b int DEFAULT 10) RETURNS int LANGUAGE sql IMMUTABLE "
    "STRICT AS 'SELECT a + b'",
    "CREATE FUNCTION kinds_named(x int) RETURNS text LANGUAGE sql STABLE "
    "RETURN (SELECT t FROM app.kinds WHERE id = x)",
    "CREATE FUNCTION dropped_fn() RETURNS int LANGUAGE sql AS 'SELECT 1'",
    "CREATE OR REPLACE FUNCTION dropped_fn() RETURNS int LANGUAGE sql AS 'SELECT 2'",
    "CREATE FUNCTION replaced_fn() RETURNS int LANGUAGE sql AS 'SELECT 1'",
    "CREATE OR REPLACE FUNCTION replaced_fn() RETURNS int LANGUAGE sql AS 'SELECT 3'",
    "DROP FUNCTION dropped_fn()",
    "CREATE PROCEDURE app.proc(n int) LANGUAGE sql AS 'SELECT n'",
    "CREATE FUNCTION app.stamp() RETURNS trigger LANGUAGE plpgsql AS "
    "$$ BEGIN NEW.note := coalesce(NEW.note, '') || '+' || TG_ARGV[0]; RETURN NEW; END $$",
    "CREATE TRIGGER child_stamp BEFORE INSERT OR UPDATE OF note ON child FOR EACH ROW "
    "WHEN (NEW.p IS NOT NULL) EXECUTE FUNCTION app.stamp('s')",
    "CREATE TRIGGER child_gone AFTER DELETE ON child FOR EACH ROW EXECUTE FUNCTION app.stamp()",
    "ALTER TABLE child DISABLE TRIGGER child_gone",
    "INSERT INTO child (p, note) VALUES (1, 'trig')",
    'CREATE EXTENSION "uuid-ossp" WITH SCHEMA app',
    "CREATE EXTENSION pgcrypto",
    "DROP EXTENSION pgcrypto",
    "CREATE TYPE app.mood AS ENUM ('sad', 'ok', 'happy')",
    "CREATE TYPE dropped_enum AS ENUM ('x')",
    "DROP TYPE dropped_enum",
    "ALTER TYPE app.mood ADD VALUE 'meh' BEFORE 'ok'",
    "ALTER TYPE app.mood RENAME VALUE 'sad' TO 'blue'",
    "CREATE TYPE renamed_enum0 AS ENUM ('a', 'b')",
    "ALTER TYPE renamed_enum0 RENAME TO renamed_enum",
    "CREATE TABLE app.moods (id int PRIMARY KEY, m app.mood, ms app.mood[])",
    "CREATE INDEX moods_m ON app.moods (m)",
    "INSERT INTO app.moods VALUES (1, 'happy', '{ok,blue}'), (2, 'blue', NULL), (3, 'meh', '{}')",
    "BEGIN",
    "CREATE TYPE rolled_back_enum AS ENUM ('z')",
    "ROLLBACK",
    "CREATE DATABASE other",
    "CREATE TABLE deferred_keys (i int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED, "
    "j int UNIQUE DEFERRABLE, k int UNIQUE)",
    "INSERT INTO deferred_keys VALUES (1, 1, 1), (2, 2, 2)",
    "UPDATE deferred_keys SET i = 3 - i, j = j + 1",
]

# What must read the same after a restart.
CHECKS = [
    "SELECT count(*), sum(id), min(t), max(t) FROM app.kinds",
    "SELECT * FROM app.kinds WHERE id = 1",
    "SELECT id FROM app.kinds WHERE t = 'row 2999'",
    "EXPLAIN (COSTS OFF) SELECT id FROM app.kinds WHERE t = 'row 2999'",
    "SELECT id FROM app.kinds WHERE lower(t) = 'row 2999' AND id > 10",
    "EXPLAIN (COSTS OFF) SELECT * FROM app.kinds WHERE lower(t) = 'row 2999' AND id > 10",
    "SELECT count(*), sum(id) FROM app.kinds WHERE id % 7 = 3",
    "SELECT pg_get_indexdef('app.kinds_lower_t'::regclass), "
    "pg_get_indexdef('app.kinds_mod'::regclass), pg_get_indexdef('app.kinds_h'::regclass)",
    "SELECT * FROM parent ORDER BY id",
    "SELECT * FROM child ORDER BY id",
    "SELECT * FROM renamed ORDER BY a",
    "SELECT * FROM emptied",
    "SELECT last_value, is_called FROM seq",
    "SELECT * FROM app.v ORDER BY id",
    "SELECT pg_get_viewdef('app.v'::regclass)",
    "SELECT obj_description('parent'::regclass), col_description('parent'::regclass, 2)",
    "SELECT nspname, nspacl FROM pg_namespace WHERE nspname = 'app'",
    "SELECT rolname, rolcanlogin, rolvaliduntil, rolconfig FROM pg_roles WHERE rolname IN ('reader', 'grp') ORDER BY 1",
    "SELECT r.rolname, m.rolname FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.roleid "
    "JOIN pg_roles m ON m.oid = a.member WHERE m.rolname = 'reader'",
    "SELECT relname, relkind, relpersistence, relacl FROM pg_class c JOIN pg_namespace n ON "
    "n.oid = c.relnamespace WHERE n.nspname IN ('public', 'app') ORDER BY relname",
    "SELECT c.relname, c.oid = t.typrelid FROM pg_class c JOIN pg_type t ON t.oid = c.reltype "
    "WHERE c.relname IN ('parent', 'child') ORDER BY 1",
    "SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid IN "
    "('parent'::regclass, 'child'::regclass) ORDER BY conname",
    "SELECT attname, attacl FROM pg_attribute WHERE attrelid = 'parent'::regclass AND attnum > 0 ORDER BY attnum",
    "SELECT datname, datacl FROM pg_database ORDER BY datname",
    "SELECT shobj_description('grp'::regrole, 'pg_authid')",
    "SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = 'app'",
    "SELECT * FROM scratch",
    "SELECT relname, relfilenode = oid FROM pg_class WHERE relname IN ('emptied', 'renamed', 'seq') ORDER BY 1",
    "SELECT relfilenode FROM pg_class WHERE relname = 'emptied'",
    "SELECT app.addn(1), app.addn(1, 2), kinds_named(2), replaced_fn()",
    "SELECT proname, prokind, provolatile, proisstrict, pronargs, "
    "pronargdefaults, prosrc, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid) "
    "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
    "WHERE n.nspname IN ('public', 'app') ORDER BY proname",
    "SELECT count(*) FROM pg_proc WHERE proname = 'dropped_fn'",
    "SELECT tgname, tgtype, tgenabled, tgattr, pg_get_triggerdef(oid) FROM pg_trigger "
    "ORDER BY tgname",
    "SELECT e.extname, e.extversion, n.nspname FROM pg_extension e "
    "JOIN pg_namespace n ON n.oid = e.extnamespace ORDER BY 1",
    "SELECT app.uuid_generate_v5(app.uuid_ns_dns(), 'durable'), "
    "(SELECT count(*) FROM pg_depend WHERE deptype = 'e')",
    "SELECT id, m, ms FROM app.moods ORDER BY m",
    "SELECT id FROM app.moods WHERE m > 'meh' ORDER BY id",
    "SELECT enum_range(NULL::app.mood), enum_range(NULL::renamed_enum)",
    "SELECT t.typname, e.enumlabel, e.enumsortorder FROM pg_enum e JOIN pg_type t "
    "ON t.oid = e.enumtypid ORDER BY 1, 3",
    "SELECT typname, typtype, typcategory FROM pg_type WHERE typname IN ('mood', '_mood', "
    "'dropped_enum', 'rolled_back_enum', 'renamed_enum', 'renamed_enum0') ORDER BY 1",
    "SELECT conname, condeferrable, condeferred, pg_get_constraintdef(oid) FROM pg_constraint "
    "WHERE conrelid = 'deferred_keys'::regclass ORDER BY 1",
    "SELECT c.relname, i.indimmediate FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
    "WHERE i.indrelid = 'deferred_keys'::regclass ORDER BY 1",
    "SELECT * FROM deferred_keys ORDER BY i",
]


def snapshot_of(info) -> list:
    c = info.connect_raw()
    try:
        return [(q, c.simple(q)) for q in CHECKS]
    finally:
        c.close()


# What a crash changes, as in PostgreSQL: UNLOGGED tables are emptied, and a sequence goes on
# from the value its last log record reserved (up to 32 values ahead), never from one before.
AFTER_CRASH = {
    "SELECT * FROM scratch": [],
}


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_restart_keeps_every_kind_of_object(server, tg_dedicated, how):
    """A clean restart reads the shutdown image back; a kill -9 replays the write-ahead log
    after the initial image: every committed object and row is there either way."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    for q in SETUP:
        c.simple(q)
    c.close()
    before = snapshot_of(p.info)
    restart_by(p, how)
    after = snapshot_of(p.info)
    for (q, a), (_, b) in zip(before, after):
        if how == "kill9" and q in AFTER_CRASH:
            assert b == AFTER_CRASH[q], q
        elif how == "kill9" and q.startswith("SELECT last_value"):
            assert int(b[0][0]) > int(a[0][0]) and b[0][1] == "t", (a, b)
        else:
            assert a == b, q
    c = p.info.connect_raw()
    # Counters go on where they were: no OID, sequence value or serial given twice.
    if how == "clean":
        assert c.simple("SELECT nextval('seq')") == [("110",)]
    else:
        assert int(c.simple("SELECT nextval('seq')")[0][0]) > 105
    c.simple("INSERT INTO parent (name) VALUES ('d')")
    c.simple("INSERT INTO child (p, note) VALUES (1, 'v')")
    # Triggers fire as before.
    assert c.simple("SELECT note FROM child WHERE note LIKE 'v%'") == [("v+s",)]
    if how == "clean":
        assert c.simple("SELECT id FROM parent WHERE name = 'd'") == [("4",)]
        assert c.simple("SELECT max(id) FROM child") == [("5",)]
    else:
        assert int(c.simple("SELECT id FROM parent WHERE name = 'd'")[0][0]) >= 4
        assert int(c.simple("SELECT max(id) FROM child")[0][0]) >= 5
    c.simple("CREATE TABLE newer (x int)")
    assert c.simple("SELECT count(DISTINCT oid) = count(*) FROM pg_class")[0] == ("t",)
    # Enum labels made after the restart get OIDs of their own, and sort where they belong.
    c.simple("ALTER TYPE app.mood ADD VALUE 'ecstatic'")
    c.simple("INSERT INTO app.moods VALUES (4, 'ecstatic', '{ecstatic}')")
    assert c.simple("SELECT count(DISTINCT oid) = count(*) FROM pg_enum")[0] == ("t",)
    assert c.simple("SELECT id FROM app.moods ORDER BY m DESC LIMIT 2") == [("4",), ("1",)]
    # DEFERRABLE keys are still checked late: at the end of the statement, at the commit.
    c.simple("UPDATE deferred_keys SET j = 5 - j")
    c.simple("BEGIN")
    c.simple("INSERT INTO deferred_keys VALUES (1, 7, 7)")
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("COMMIT")
    assert e.value.fields.get("C") == "23505"
    assert e.value.fields.get("D") == "Key (i)=(1) already exists."
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("SELECT 'x'::dropped_enum")
    assert e.value.fields["C"] == "42704"
    # An extension restored with its members is dropped with them; a dropped one is gone.
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("SELECT digest('x', 'md5')")
    assert e.value.fields["C"] == "42883"
    c.simple('DROP EXTENSION "uuid-ossp"')
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("SELECT app.uuid_nil()")
    assert e.value.fields["C"] == "42883"
    # Constraints are enforced as before.
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("INSERT INTO app.kinds (id, t) VALUES (1, 'dup')")
    assert e.value.fields["C"] == "23505"
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("INSERT INTO app.kinds (id, t) VALUES (9999, 'row 5')")
    assert e.value.fields["C"] == "23505"
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("INSERT INTO child (p) VALUES (42)")
    assert e.value.fields["C"] == "23503"
    c.simple("DELETE FROM parent WHERE id = 2")
    assert c.simple("SELECT count(*) FROM child WHERE p = 2") == [("0",)]
    c.close()
    # The role logs in with its stored password and its settings; its grants hold.
    r = p.info.connect_raw(user="reader", password="secret")
    assert r.simple("SHOW work_mem") == [("8MB",)]
    assert r.simple("SELECT count(*) FROM app.kinds") == [("3000",)]
    with pytest.raises(pgwire.ServerError) as e:
        r.simple("SELECT name FROM parent")
    assert e.value.fields["C"] == "42501"
    r.close()
    # The other database is there and usable.
    o = p.info.connect_raw(database="other")
    o.simple("CREATE TABLE t (a int)")
    o.close()


@TG
def test_temporary_tables_are_not_kept(server, tg_dedicated):
    p = tg_dedicated()
    c = p.info.connect_raw()
    c.simple("CREATE TEMP TABLE tmp (a int)")
    c.simple("INSERT INTO tmp VALUES (1)")
    c.simple("CREATE TABLE kept (a int)")
    c.simple("CHECKPOINT")
    c.close()
    p.restart()
    c = p.info.connect_raw()
    assert c.simple("SELECT relname FROM pg_class WHERE relname IN ('tmp', 'kept')") == [("kept",)]
    assert c.simple("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg_temp%'") == [("0",)]
    c.close()


@TG
def test_kill9_keeps_the_last_checkpoint_and_empties_unlogged_tables(server, tg_dedicated):
    p = tg_dedicated()
    c = p.info.connect_raw()
    c.simple("CREATE TABLE t (a int)")
    c.simple("INSERT INTO t VALUES (1), (2)")
    c.simple("CREATE UNLOGGED TABLE u (a int)")
    c.simple("INSERT INTO u VALUES (1)")
    c.simple("CHECKPOINT")
    c.close()
    kill9(p)
    p.start()
    c = p.info.connect_raw()
    assert c.simple("SELECT sum(a) FROM t") == [("3",)]
    # As in PostgreSQL, an unlogged table is empty after a crash but still defined.
    assert c.simple("SELECT count(*) FROM u") == [("0",)]
    assert c.simple("SELECT relpersistence FROM pg_class WHERE relname = 'u'") == [("u",)]
    c.close()


@TG
def test_a_second_server_on_the_directory_is_refused(server, tg_dedicated):
    p = tg_dedicated()
    data = p.data_dir()
    assert (data / "postmaster.pid").read_text().split("\n")[0] == str(p.proc.pid)
    out = subprocess.run(
        [servers.threadgres_binary(), "--port", str(servers.free_port()), "--listen", servers.HOST,
         "-D", str(data)], capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert 'lock file "postmaster.pid" already exists' in out.stderr
    assert f"PID {p.proc.pid}" in out.stderr
    # The first one is unharmed; a clean stop removes the lock file, a kill leaves it stale but
    # harmless (the kernel released its lock).
    c = p.info.connect_raw()
    assert c.simple("SELECT 1") == [("1",)]
    c.close()
    p.stop()
    assert not (data / "postmaster.pid").exists()
    p.start()
    kill9(p)
    assert (data / "postmaster.pid").exists()
    p.start()
    c = p.info.connect_raw()
    assert c.simple("SELECT 1") == [("1",)]
    c.close()


@TG
def test_password_is_set_at_initialization_and_alter_role_wins(server, tmp_root):
    work = tmp_root / "durable-pw"
    p = servers.ThreadgresProcess(servers.threadgres_binary(), work, name="durable-pw",
                                  password="first")
    p.start()
    c = p.info.connect_raw()
    c.simple("ALTER ROLE postgres PASSWORD 'second'")
    c.close()
    p.stop()
    # Started again with --password 'first' (from a file, which wins over --password): the
    # stored password, 'second', is the one that counts.
    first = work / "first.txt"
    first.write_text("first\n")
    q = servers.ThreadgresProcess(servers.threadgres_binary(), work, name="durable-pw",
                                  password="second", extra_args=("--password-file", str(first)))
    q.start()
    try:
        with pytest.raises(pgwire.ServerError) as e:
            q.info.connect_raw(password="first")
        assert e.value.fields["C"] == "28P01"
        c = q.info.connect_raw(password="second")
        assert c.simple("SELECT 1") == [("1",)]
        c.close()
    finally:
        q.stop()


@TG
def test_damaged_or_foreign_directories_are_refused(server, tg_dedicated, tmp_root):
    p = tg_dedicated()
    data = p.data_dir()
    c = p.info.connect_raw()
    c.simple("CREATE TABLE t AS SELECT g FROM generate_series(1, 1000) g")
    c.close()
    p.stop()
    image = data / "checkpoint"
    good = image.read_bytes()

    def start_fails() -> str:
        out = subprocess.run(
            [servers.threadgres_binary(), "--port", str(servers.free_port()), "--listen",
             servers.HOST, "-D", str(data)], capture_output=True, text=True, timeout=30)
        assert out.returncode != 0, out.stdout
        return out.stderr

    damaged = bytearray(good)
    damaged[len(good) // 2] ^= 0xFF
    image.write_bytes(bytes(damaged))
    assert "checkpoint image damaged at offset" in start_fails()
    image.write_bytes(good[: len(good) - 5])
    assert "checkpoint image damaged at offset" in start_fails()
    image.write_bytes(good)
    version = (data / "THREADGRES_VERSION").read_text()
    (data / "THREADGRES_VERSION").write_text("999\n")
    err = start_fails()
    assert "database files are incompatible with server" in err
    (data / "THREADGRES_VERSION").write_text(version)
    p.start()
    c = p.info.connect_raw()
    assert c.simple("SELECT count(*) FROM t") == [("1000",)]
    c.close()


@TG
def test_checkpoint_runs_while_writers_go_on(server, tg_dedicated):
    """An image is read at one snapshot: a transaction's rows are in it whole or not at all."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    c.simple("CREATE TABLE pairs (k int, side int)")
    w = p.info.connect_raw()
    for i in range(200):
        w.simple(f"BEGIN; INSERT INTO pairs VALUES ({i}, 1); INSERT INTO pairs VALUES ({i}, 2); COMMIT")
        if i % 40 == 0:
            c.simple("CHECKPOINT")
    w.simple("BEGIN")
    w.simple("INSERT INTO pairs VALUES (-1, 1)")
    c.simple("CHECKPOINT")
    c.close()
    kill9(p)
    p.start()
    c = p.info.connect_raw()
    rows = c.simple("SELECT k, count(*) FROM pairs GROUP BY k HAVING count(*) <> 2")
    assert rows == []
    assert c.simple("SELECT count(*) FROM pairs") == [("400",)]
    c.close()


@TG
def test_timed_checkpoints_bound_what_a_crash_loses(server, tg_dedicated):
    p = tg_dedicated("--checkpoint-timeout", "1s")
    c = p.info.connect_raw()
    assert c.simple("SHOW checkpoint_timeout") == [("1s",)]
    c.simple("CREATE TABLE t (a int)")
    c.simple("CREATE TABLE tick (a int)")
    c.simple("INSERT INTO t VALUES (1)")
    deadline = time.monotonic() + 20
    # The server logs at warn in tests: the image's time tells when the timed one came.
    image = p.data_dir() / "checkpoint"
    # Two new images: the second surely began after the INSERT committed.
    for _ in range(2):
        written = image.stat().st_mtime_ns
        while image.stat().st_mtime_ns == written:
            assert time.monotonic() < deadline, "no timed checkpoint was written"
            time.sleep(0.05)
        c.simple("INSERT INTO tick VALUES (1)")  # a commit since: the next one is not skipped
    c.close()
    kill9(p)
    p.start()
    c = p.info.connect_raw()
    assert c.simple("SELECT a FROM t") == [("1",)]
    c.close()


@TG
def test_drop_database_takes_its_objects_with_it(server, tg_dedicated):
    p = tg_dedicated()
    c = p.info.connect_raw()
    c.simple("CREATE DATABASE gone")
    g = p.info.connect_raw(database="gone")
    g.simple("CREATE SCHEMA s")
    g.simple("CREATE TABLE s.t (a int)")
    g.simple("CREATE TABLE t AS SELECT 1 AS a")
    g.simple("COMMENT ON TABLE t IS 'old'")
    g.close()
    deadline = time.monotonic() + 10
    while True:
        try:
            c.simple("DROP DATABASE gone")
            break
        except pgwire.ServerError as e:
            # the session just closed may still be counted for a moment (55006)
            assert e.fields["C"] == "55006" and time.monotonic() < deadline, e.fields
            time.sleep(0.05)
    c.simple("CREATE DATABASE gone")
    c.close()
    for restart in (False, True):
        if restart:
            p.restart()
        g = p.info.connect_raw(database="gone")
        assert g.simple("SELECT count(*) FROM pg_class WHERE relname = 't'") == [("0",)]
        assert g.simple("SELECT count(*) FROM pg_namespace WHERE nspname = 's'") == [("0",)]
        if restart:
            g.simple("CREATE TABLE t (b text)")
            assert g.simple("SELECT obj_description('t'::regclass)") == [(None,)]
        g.close()


@TG
def test_a_full_disk_fails_the_statement_and_damages_nothing(server, tmp_root):
    """On a 4 MB tmpfs: a statement whose log records, or a checkpoint whose image, do not fit
    fails with 53100 as PostgreSQL's ENOSPC does; what was committed stays whole, and the
    server goes on."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mnt = tmp_root / "small-disk"
    mnt.mkdir(exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    p = servers.ThreadgresProcess(servers.threadgres_binary(), tmp_root / "small-disk-work",
                                  extra_args=("--data-dir", str(mnt / "data"),
                                              "--wal-segment-size", "64kB",
                                              "--min-wal-size", "256kB",
                                              "--max-wal-size", "512kB"), name="small")
    try:
        p.start()
        c = p.info.connect_raw()
        assert c.simple("SHOW wal_segment_size") == [("64kB",)]
        c.simple("CREATE TABLE kept (a int)")
        c.simple("INSERT INTO kept VALUES (1)")
        c.simple("CHECKPOINT")
        # The log cannot grow: the statement that needs the space fails, nothing else.
        with pytest.raises(pgwire.ServerError) as e:
            c.simple("CREATE TABLE big AS SELECT g, repeat(md5(g::text), 4) AS t "
                     "FROM generate_series(1, 200000) g")
        assert e.value.fields["C"] == "53100", e.value.fields
        assert "No space left on device" in e.value.fields["M"]
        assert c.simple("SELECT count(*) FROM pg_class WHERE relname = 'big'") == [("0",)]
        # A checkpoint recycles the log; the server goes on.
        c.simple("CHECKPOINT")
        c.simple("INSERT INTO kept VALUES (2)")
        # Growing a table with a checkpoint after each step: the image (or the log) stops
        # fitting, which fails the same way and leaves the previous image whole.
        c.simple("CREATE TABLE mid (t text)")
        with pytest.raises(pgwire.ServerError) as e:
            for _ in range(60):
                c.simple("INSERT INTO mid SELECT repeat(md5(g::text), 8) FROM generate_series(1, 1000) g")
                c.simple("CHECKPOINT")
        assert e.value.fields["C"] == "53100", e.value.fields
        # The background checkpointer may be writing its own image (the log passed half of
        # max_wal_size) and retries a failed one after a pause: a partial file is removed when
        # its write fails, so it is gone within a moment.
        deadline = time.monotonic() + 10
        while (mnt / "data" / "checkpoint.tmp").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not (mnt / "data" / "checkpoint.tmp").exists()
        c.simple("DROP TABLE mid")
        c.simple("CHECKPOINT")
        c.close()
        kill9(p)
        p.start()
        c = p.info.connect_raw()
        assert c.simple("SELECT sum(a) FROM kept") == [("3",)]
        assert c.simple("SELECT count(*) FROM pg_class WHERE relname = 'big'") == [("0",)]
        c.close()
    finally:
        p.stop()
        subprocess.run(["umount", str(mnt)])


@TG
def test_checkpoint_lets_the_shard_serve_others(server, tg_dedicated):
    """One shard: while a session's CHECKPOINT writes, another session of the same shard runs
    and sees it waiting on PostgreSQL's wait event (IPC / CheckpointDone)."""
    import threading
    p = tg_dedicated("--worker-threads", "1")
    c = p.info.connect_raw()
    c.simple("CREATE TABLE big AS SELECT g, md5(g::text) AS t FROM generate_series(1, 1500000) g")
    pid = c.simple("SELECT pg_backend_pid()")[0][0]
    o = p.info.connect_raw()
    done = threading.Event()
    errors = []

    def checkpoint():
        try:
            c.simple("CHECKPOINT")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
        done.set()
    t = threading.Thread(target=checkpoint)
    t.start()
    seen = False
    while not done.is_set():
        rows = o.simple(f"SELECT wait_event_type, wait_event FROM pg_stat_activity WHERE pid = {pid}")
        seen = seen or rows == [("IPC", "CheckpointDone")]
    t.join()
    assert not errors, errors
    assert seen, "the other session never ran while the checkpoint was written"
    assert o.simple(f"SELECT wait_event FROM pg_stat_activity WHERE pid = {pid}") == [("ClientRead",)]
    c.close()
    o.close()


@TG
def test_a_crash_after_a_clean_restart_replays_onto_the_shutdown_image(server, tg_dedicated):
    """The log after a clean restart names rows as the restore placed them: updates and
    deletes of rows from before the restart replay onto the right rows."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    c.simple("CREATE TABLE r (k int PRIMARY KEY, v int)")
    c.simple("INSERT INTO r SELECT g, g FROM generate_series(1, 500) g")
    # Dead versions and holes before the image, so that slots and ranks differ.
    c.simple("UPDATE r SET v = v + 1000 WHERE k % 3 = 0")
    c.simple("DELETE FROM r WHERE k % 7 = 0")
    c.simple("VACUUM r")
    c.close()
    p.restart()
    c = p.info.connect_raw()
    c.simple("UPDATE r SET v = -v WHERE k % 5 = 0")
    c.simple("DELETE FROM r WHERE k % 11 = 0")
    c.simple("INSERT INTO r VALUES (1001, 1)")
    want = c.simple("SELECT k, v FROM r ORDER BY k")
    # pg_stat_wal counts what this server logged, wrote and synced.
    assert c.simple("SELECT wal_records > 0, wal_bytes > 0, wal_write > 0, wal_sync > 0, "
                    "wal_fpi, stats_reset <= now() FROM pg_stat_wal") == [("t", "t", "t", "t", "0", "t")]
    c.close()
    kill9(p)
    p.start()
    c = p.info.connect_raw()
    assert c.simple("SELECT k, v FROM r ORDER BY k") == want
    c.close()


@TG
def test_wal_settings_are_shown_as_postgresql_shows_them(server, tg_dedicated):
    p = tg_dedicated("--wal-segment-size", "1MB", "--max-wal-size", "64MB", "--wal-writer-delay", "50ms",
                     "--commit-delay", "10", "--fsync", "off")
    c = p.info.connect_raw()
    got = c.simple("SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'wal_segment_size', "
                   "'max_wal_size', 'min_wal_size', 'wal_buffers', 'wal_writer_delay', 'commit_delay', "
                   "'synchronous_commit') ORDER BY name")
    shown = {n: c.simple(f"SHOW {n}")[0][0] for n, _ in got}
    assert shown == {"commit_delay": "10", "fsync": "off", "max_wal_size": "64MB", "min_wal_size": "80MB",
                     "synchronous_commit": "on", "wal_buffers": "1MB", "wal_segment_size": "1MB",
                     "wal_writer_delay": "50ms"}, shown
    # synchronous_commit is the session's to choose; an asynchronous commit is still replayed
    # once the writer has flushed it.
    c.simple("SET synchronous_commit = off")
    c.simple("CREATE TABLE a (x int)")
    c.simple("INSERT INTO a VALUES (1)")
    c.simple("SET synchronous_commit = on")
    c.simple("INSERT INTO a VALUES (2)")
    c.close()
    kill9(p)
    p.start()
    c = p.info.connect_raw()
    assert c.simple("SELECT sum(x) FROM a") == [("3",)]
    c.close()


@TG
def test_the_log_stays_within_max_wal_size(server, tg_dedicated):
    """Half of max_wal_size written starts a checkpoint, after which the log before its redo
    point is recycled: pg_wal does not grow with the work done, and nothing is lost."""
    p = tg_dedicated("--wal-segment-size", "64kB", "--min-wal-size", "128kB", "--max-wal-size", "1MB")
    c = p.info.connect_raw()
    c.simple("CREATE TABLE w (k int PRIMARY KEY, t text)")
    for i in range(40):
        c.simple(f"INSERT INTO w SELECT g, repeat('x', 100) FROM generate_series({i * 500}, {i * 500 + 499}) g")
        c.simple(f"UPDATE w SET t = 'y' WHERE k BETWEEN {i * 500} AND {i * 500 + 99}")
    # About 4 MB of log was written; the checkpointer looks every quarter second.
    assert int(c.simple("SELECT wal_bytes FROM pg_stat_wal")[0][0]) > 3 << 20
    wal = p.data_dir() / "pg_wal"
    deadline = time.monotonic() + 10
    while sum(f.stat().st_size for f in wal.iterdir()) > 2 << 20:
        assert time.monotonic() < deadline, sorted(f.name for f in wal.iterdir())
        time.sleep(0.1)
    want = c.simple("SELECT count(*), count(*) FILTER (WHERE t = 'y') FROM w")
    c.close()
    kill9(p)
    p.start()
    c = p.info.connect_raw()
    assert c.simple("SELECT count(*), count(*) FILTER (WHERE t = 'y') FROM w") == want == [("20000", "4000")]
    c.close()


@TG
def test_a_hot_row_passes_to_the_next_writer_before_the_flush(server, tg_dedicated):
    """`txn` invariant 8: with each flush held back 100 ms (commit_delay), a writer waiting for
    a row gets it once the holder's commit record is appended, before that commit is durable:
    it sees the commit, a reader's snapshot does not yet, and neither COMMIT is answered
    before the first one's flush. Ordering only: the 100 ms separate the events."""
    p = tg_dedicated("--commit-delay", "100000")
    a, b, r = (p.info.connect_raw() for _ in range(3))
    a.simple("CREATE TABLE hot (id int PRIMARY KEY, v int)")
    a.simple("INSERT INTO hot VALUES (1, 0)")
    a.simple("BEGIN")
    a.simple("UPDATE hot SET v = v + 1 WHERE id = 1")
    b.simple("BEGIN")
    b.send_query("UPDATE hot SET v = v + 10 WHERE id = 1 RETURNING v")
    assert b.read_available(0.3) == [], "b waits for a's row lock"
    a.send_query("COMMIT")
    got = b.read_until_ready(timeout=30)
    assert [m.type for m in got if m.type in "DC"] == ["D", "C"], got
    # b's UPDATE ran on a's version before a's COMMIT was answered (the flush is held).
    assert a.read_available(0.0) == [], "a's commit answered before its flush"
    assert b.simple("SELECT v FROM hot") == [("11",)]
    assert r.simple("SELECT v FROM hot") == [("0",)], "a reader saw a commit not yet durable"
    b.send_query("COMMIT")
    a_done = a.read_until_ready(timeout=30)
    assert [m.type for m in a_done if m.type == "C"] == ["C"]
    b_done = b.read_until_ready(timeout=30)
    assert [m.type for m in b_done if m.type == "C"] == ["C"]
    assert r.simple("SELECT v FROM hot") == [("11",)]
    kill9(p)
    p.start()
    c = p.info.connect_raw()
    assert c.simple("SELECT v FROM hot") == [("11",)]


DOMAIN_SETUP = [
    "CREATE SCHEMA dom",
    "CREATE DOMAIN dom.posint AS int CHECK (VALUE > 0)",
    "CREATE DOMAIN code varchar(5) NOT NULL DEFAULT 'none' CONSTRAINT code_len CHECK (length(VALUE) > 1)",
    "CREATE DOMAIN small dom.posint CHECK (VALUE < 100)",
    "CREATE DOMAIN dropped_dom int",
    "DROP DOMAIN dropped_dom",
    "BEGIN",
    "CREATE DOMAIN rolled_back_dom int",
    "ROLLBACK",
    "ALTER DOMAIN dom.posint ADD CONSTRAINT posint_odd CHECK (VALUE % 2 = 1) NOT VALID",
    "ALTER DOMAIN code SET DEFAULT 'dflt'",
    "CREATE TABLE dom.items (id int PRIMARY KEY, p dom.posint, c code, s small, ps dom.posint[])",
    "INSERT INTO dom.items VALUES (1, 3, 'ab', 5, '{1,3}')",
    "INSERT INTO dom.items (id, p) VALUES (2, 7)",
]

DOMAIN_CHECKS = [
    "SELECT * FROM dom.items ORDER BY id",
    "SELECT t.typname, t.typtype, t.typbasetype::regtype, t.typnotnull, t.typdefault "
    "FROM pg_type t WHERE t.typtype = 'd' ORDER BY 1",
    "SELECT conname, contypid::regtype, convalidated, pg_get_constraintdef(oid) FROM pg_constraint "
    "WHERE contypid <> 0 ORDER BY conname",
    "SELECT attname, atttypid::regtype FROM pg_attribute WHERE attrelid = 'dom.items'::regclass "
    "AND attnum > 0 ORDER BY attnum",
]


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_restart_keeps_domains(server, tg_dedicated, how):
    """Domains (CREATE / ALTER / DROP DOMAIN) and their columns are kept by a clean restart
    and by log replay after a crash; their constraints hold afterwards."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    for q in DOMAIN_SETUP:
        c.simple(q)
    before = [(q, c.simple(q)) for q in DOMAIN_CHECKS]
    c.close()
    assert len(before[1][1]) == 3, before[1]
    restart_by(p, how)
    c = p.info.connect_raw()
    after = [(q, c.simple(q)) for q in DOMAIN_CHECKS]
    assert before == after
    for q, state in [
        ("INSERT INTO dom.items (id, p) VALUES (3, -1)", "23514"),
        ("INSERT INTO dom.items (id, p) VALUES (3, 4)", "23514"),
        ("INSERT INTO dom.items (id, c) VALUES (3, NULL)", "23502"),
        ("INSERT INTO dom.items (id, s) VALUES (3, 101)", "23514"),
        ("INSERT INTO dom.items (id, ps) VALUES (3, '{1,-1}')", "23514"),
        ("SELECT 1::dropped_dom", "42704"),
        ("SELECT 1::rolled_back_dom", "42704"),
    ]:
        with pytest.raises(pgwire.ServerError) as e:
            c.simple(q)
        assert e.value.fields["C"] == state, q
    c.simple("INSERT INTO dom.items (id, s) VALUES (3, 9)")
    assert c.simple("SELECT c, s FROM dom.items WHERE id = 3") == [("dflt", "9")]
    c.close()


@TG
def test_a_rewrite_of_an_indexed_table_survives_a_crash(server, tg_dedicated):
    """ALTER TABLE ... ADD COLUMN with a default and ALTER COLUMN TYPE rewrite the table into
    a new storage; its index relations follow the table without renumbering that storage (they
    did, and the rows logged under the first number were lost at replay)."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    c.simple("CREATE TABLE rw (a int PRIMARY KEY, b text UNIQUE)")
    c.simple("INSERT INTO rw SELECT g, 'x' || g FROM generate_series(1, 300) g")
    c.simple("ALTER TABLE rw ADD COLUMN c int DEFAULT 5")
    c.simple("ALTER TABLE rw ALTER COLUMN c TYPE bigint")
    c.simple("UPDATE rw SET c = a WHERE a % 10 = 0")
    c.simple("CREATE TABLE tr (a int PRIMARY KEY)")
    c.simple("INSERT INTO tr VALUES (1), (2)")
    c.simple("TRUNCATE tr")
    c.simple("INSERT INTO tr VALUES (3)")
    checks = ["SELECT count(*), sum(c) FROM rw", "SELECT a, b, c FROM rw WHERE a = 50",
              "SELECT a FROM rw WHERE b = 'x7'", "SELECT a FROM tr"]
    before = [c.simple(q) for q in checks]
    c.close()
    assert before[0] == [("300", str(5 * 270 + sum(range(10, 301, 10))))]
    kill9(p)
    p.start()
    c = p.info.connect_raw()
    assert [c.simple(q) for q in checks] == before


RANGE_SETUP = [
    "CREATE SCHEMA rng",
    "CREATE TYPE rng.floatrange AS RANGE (subtype = float8, subtype_diff = float8mi)",
    "CREATE TYPE textrange AS RANGE (subtype = text)",
    "CREATE TYPE dropped_range AS RANGE (subtype = int4)",
    "DROP TYPE dropped_range",
    "BEGIN",
    "CREATE TYPE rolled_back_range AS RANGE (subtype = int8)",
    "ROLLBACK",
    "CREATE TABLE rng.items (id int PRIMARY KEY, f rng.floatrange, t textrange, "
    "i int4range UNIQUE, d daterange, n numrange, fs rng.floatrange[])",
    "INSERT INTO rng.items VALUES (1, '[1.5,2.5)', '[a,m)', '(1,5]', '[2024-01-01,2024-02-01]', "
    "'(,3.5]', '{\"[1,2]\",empty}')",
    "INSERT INTO rng.items (id, f, i) VALUES (2, rng.floatrange(3, 4, '()'), int4range(10, NULL))",
    "INSERT INTO rng.items (id, i) VALUES (3, 'empty')",
]

RANGE_CHECKS = [
    "SELECT * FROM rng.items ORDER BY id",
    "SELECT id FROM rng.items WHERE f @> 3.5::float8 OR i @> 3 ORDER BY id",
    "SELECT t.typname, t.typtype, r.rngsubtype::regtype FROM pg_range r "
    "JOIN pg_type t ON t.oid = r.rngtypid ORDER BY 1",
    "SELECT attname, atttypid::regtype FROM pg_attribute WHERE attrelid = 'rng.items'::regclass "
    "AND attnum > 0 ORDER BY attnum",
]


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_restart_keeps_range_types(server, tg_dedicated, how):
    """Range types made by CREATE TYPE ... AS RANGE, and range values of built-in and user
    range types in a table (with a unique index on one), are kept by a clean restart and by log
    replay after a crash."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    for q in RANGE_SETUP:
        c.simple(q)
    before = [(q, c.simple(q)) for q in RANGE_CHECKS]
    c.close()
    assert len(before[0][1]) == 3, before[0]
    assert len(before[2][1]) == 8, before[2]
    restart_by(p, how)
    c = p.info.connect_raw()
    after = [(q, c.simple(q)) for q in RANGE_CHECKS]
    assert before == after
    for q, state in [
        ("INSERT INTO rng.items (id, i) VALUES (4, '[2,6)')", "23505"),
        ("SELECT '[1,2)'::dropped_range", "42704"),
        ("SELECT '[1,2)'::rolled_back_range", "42704"),
        ("SELECT '[2,1)'::rng.floatrange", "22000"),
        ("DROP TYPE textrange", "2BP01"),
    ]:
        with pytest.raises(pgwire.ServerError) as e:
            c.simple(q)
        assert e.value.fields["C"] == state, q
    assert c.simple("SELECT rng.floatrange(1, 2) + '[2,3]'") == [("[1,3]",)]
    c.close()


MULTIRANGE_SETUP = [
    "CREATE SCHEMA mrg",
    "CREATE TYPE mrg.floatrange AS RANGE (subtype = float8)",
    "CREATE TYPE textrange AS RANGE (subtype = text, multirange_type_name = textranges)",
    "CREATE TABLE mrg.items (id int PRIMARY KEY, i int4multirange UNIQUE, n nummultirange, "
    "d datemultirange, f mrg.floatmultirange, t textranges, a int8multirange[])",
    "INSERT INTO mrg.items VALUES (1, '{[1,3), [5,7), [2,4)}', '{(,1.5], [3,4)}', "
    "'{[2024-01-01,2024-01-31], [2024-02-01,2024-03-01)}', '{[1.5,2), (3,4]}', '{[a,c), [x,)}', "
    "ARRAY['{[1,2)}'::int8multirange, '{}'])",
    "INSERT INTO mrg.items (id, i, f) VALUES (2, '{}', mrg.floatmultirange(mrg.floatrange(1, 2)))",
    "BEGIN",
    "INSERT INTO mrg.items (id, i) VALUES (3, '{[10,20)}')",
    "ROLLBACK",
    "UPDATE mrg.items SET n = n + '{[10,11)}' WHERE id = 1",
]

MULTIRANGE_CHECKS = [
    "SELECT * FROM mrg.items ORDER BY id",
    "SELECT id FROM mrg.items WHERE i @> 6 OR f @> 1.5::float8 ORDER BY id",
    "SELECT range_agg(i)::text, range_intersect_agg(n)::text FROM mrg.items",
    "SELECT t.typname, m.typname FROM pg_range r JOIN pg_type t ON t.oid = r.rngtypid "
    "JOIN pg_type m ON m.oid = r.rngmultitypid ORDER BY 1",
]


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_restart_keeps_multirange_values(server, tg_dedicated, how):
    """Multirange values of built-in multirange types and of the multirange types CREATE TYPE
    ... AS RANGE makes (arrays of them too) in a table with a unique index, are kept by a
    clean restart and by log replay after a crash; a rolled-back insert stays gone."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    for q in MULTIRANGE_SETUP:
        c.simple(q)
    before = [(q, c.simple(q)) for q in MULTIRANGE_CHECKS]
    c.close()
    assert len(before[0][1]) == 2, before[0]
    assert before[1][1] == [("1",), ("2",)], before[1]
    restart_by(p, how)
    c = p.info.connect_raw()
    after = [(q, c.simple(q)) for q in MULTIRANGE_CHECKS]
    assert before == after
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("INSERT INTO mrg.items (id, i) VALUES (4, '{[2,4), [1,2), [5,7)}')")
    assert e.value.fields["C"] == "23505"
    assert c.simple("SELECT i - '{[2,6)}' FROM mrg.items WHERE id = 1") == [("{[1,2),[6,7)}",)]
    c.close()


GENERATED_SETUP = [
    "CREATE TABLE gen (a int PRIMARY KEY, b int GENERATED ALWAYS AS (a * 2) STORED, "
    "t text, u text GENERATED ALWAYS AS (upper(t)) STORED UNIQUE)",
    "INSERT INTO gen (a, t) VALUES (1, 'x'), (2, 'y')",
    "UPDATE gen SET a = 3, t = 'z' WHERE a = 2",
    "CREATE TABLE gen_added (a int PRIMARY KEY, t text)",
    "INSERT INTO gen_added VALUES (1, 'x'), (2, NULL)",
    "ALTER TABLE gen_added ADD COLUMN c int GENERATED ALWAYS AS (a + 100) STORED",
    "CREATE TABLE gen_plain (a int, b int GENERATED ALWAYS AS (a - 1) STORED)",
    "INSERT INTO gen_plain (a) VALUES (5)",
    "ALTER TABLE gen_plain ALTER COLUMN b DROP EXPRESSION",
    "BEGIN",
    "CREATE TABLE gen_rolled_back (a int, b int GENERATED ALWAYS AS (a) STORED)",
    "ROLLBACK",
]
GENERATED_CHECKS = [
    "SELECT * FROM gen ORDER BY a",
    "SELECT * FROM gen_added ORDER BY a",
    "SELECT * FROM gen_plain",
    "SELECT attrelid::regclass::text, attname, attgenerated FROM pg_attribute "
    "WHERE attrelid IN ('gen'::regclass, 'gen_added'::regclass, 'gen_plain'::regclass) "
    "AND attnum > 0 ORDER BY 1, attnum",
    "SELECT adrelid::regclass::text, adnum, pg_get_expr(adbin, adrelid) FROM pg_attrdef "
    "WHERE adrelid IN ('gen'::regclass, 'gen_added'::regclass, 'gen_plain'::regclass) "
    "ORDER BY 1, 2",
    "SELECT count(*) FROM pg_class WHERE relname = 'gen_rolled_back'",
]


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_restart_keeps_generated_columns(server, tg_dedicated, how):
    """Generated columns (their expressions and stored values, an added one, a dropped
    expression) are kept by a clean restart and by log replay after a crash, and are computed
    and enforced afterwards."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    for q in GENERATED_SETUP:
        c.simple(q)
    before = [(q, c.simple(q)) for q in GENERATED_CHECKS]
    c.close()
    assert before[0][1] == [("1", "2", "x", "X"), ("3", "6", "z", "Z")], before[0]
    assert before[1][1] == [("1", "x", "101"), ("2", None, "102")], before[1]
    restart_by(p, how)
    c = p.info.connect_raw()
    after = [(q, c.simple(q)) for q in GENERATED_CHECKS]
    assert before == after
    c.simple("INSERT INTO gen (a, t) VALUES (4, 'w')")
    assert c.simple("SELECT b, u FROM gen WHERE a = 4") == [("8", "W")]
    c.simple("INSERT INTO gen_added (a) VALUES (4)")
    assert c.simple("SELECT c FROM gen_added WHERE a = 4") == [("104",)]
    for q, state in [
        ("INSERT INTO gen (a, b) VALUES (5, 10)", "428C9"),
        ("UPDATE gen SET b = 1", "428C9"),
        ("INSERT INTO gen (a, t) VALUES (6, 'X')", "23505"),
    ]:
        with pytest.raises(pgwire.ServerError) as e:
            c.simple(q)
        assert e.value.fields["C"] == state, q
    c.simple("INSERT INTO gen_plain (a, b) VALUES (7, 70)")
    assert c.simple("SELECT b FROM gen_plain WHERE a = 7") == [("70",)]
    c.close()



@TG
def test_commits_inside_a_procedure_survive_a_crash(server, tg_dedicated):
    """COMMIT in a procedure is a durable commit: after a kill -9 in the middle of the CALL,
    what the procedure committed is there and what it wrote after its last COMMIT is not."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    c.simple("CREATE TABLE pc (a int PRIMARY KEY)")
    c.simple("CREATE PROCEDURE pc_batches() LANGUAGE plpgsql AS $$ BEGIN "
             "FOR i IN 1..3 LOOP INSERT INTO pc VALUES (i); COMMIT; END LOOP; "
             "INSERT INTO pc VALUES (99); PERFORM pg_sleep(60); END $$")
    caller = p.info.connect_raw()

    def call():
        try:
            caller.simple("CALL pc_batches()")
        except Exception:  # the server is killed under it
            pass

    t = threading.Thread(target=call, daemon=True)
    t.start()
    deadline = time.monotonic() + 20
    while c.simple("SELECT count(*) FROM pc") != [("3",)]:
        assert time.monotonic() < deadline, "the procedure's commits never became visible"
        time.sleep(0.05)
    c.close()
    kill9(p)
    t.join(10)
    p.start()
    c = p.info.connect_raw()
    assert c.simple("SELECT a FROM pc ORDER BY a") == [("1",), ("2",), ("3",)]


GIN_SETUP = [
    "CREATE TABLE gj (id int PRIMARY KEY, doc jsonb, arr int[])",
    "INSERT INTO gj SELECT g, ('{\"k\": ' || (g % 7) || ', \"v\": \"x' || g || '\"}')::jsonb, "
    "array[g % 5, g] FROM generate_series(1, 2000) g",
    "CREATE INDEX gj_doc ON gj USING gin (doc)",
    "CREATE INDEX gj_path ON gj USING gin (doc jsonb_path_ops)",
    "CREATE INDEX gj_arr ON gj USING gin (arr)",
    "CHECKPOINT",
    # After the checkpoint: replayed from the log after a crash.
    "UPDATE gj SET doc = doc || '{\"k\": 99}' WHERE id <= 20",
    "DELETE FROM gj WHERE arr @> '{3}'",
    "INSERT INTO gj VALUES (5000, '{\"k\": 99, \"new\": true}', '{99}')",
    "BEGIN",
    "INSERT INTO gj VALUES (6000, '{\"k\": 99}', '{99}')",
    "ROLLBACK",
]

GIN_CHECKS = [
    "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'gj' ORDER BY 1",
    "SELECT count(*) FROM gj WHERE doc @> '{\"k\": 99}'",
    "SELECT id FROM gj WHERE doc ? 'new'",
    "SELECT count(*) FROM gj WHERE doc @> '{\"k\": 3}'",
    "SELECT count(*) FROM gj WHERE arr && '{3,4}'",
    "SELECT id FROM gj WHERE arr @> '{99}'",
]


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_restart_keeps_gin_indexes(server, tg_dedicated, how):
    """GIN indexes (jsonb_ops, jsonb_path_ops, array_ops) are kept by a clean restart and by
    log replay after a crash: rebuilt from the rows, they find what a sequential scan finds,
    and the planner still uses them."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    for q in GIN_SETUP:
        c.simple(q)
    c.simple("SET enable_bitmapscan = off")
    by_scan = [(q, c.simple(q)) for q in GIN_CHECKS]
    c.close()
    # ids 1-20 less the four the DELETE took (g % 5 = 3), and the one inserted after
    assert by_scan[1][1] == [("17",)] and by_scan[5][1] == [("99",), ("5000",)], by_scan
    restart_by(p, how)
    c = p.info.connect_raw()
    c.simple("SET enable_seqscan = off")
    by_index = [(q, c.simple(q)) for q in GIN_CHECKS]
    assert by_index == by_scan
    plan = c.simple("EXPLAIN (COSTS OFF) SELECT id FROM gj WHERE doc @> '{\"k\": 99}'")
    assert [r[0] for r in plan][:3] == [
        "Bitmap Heap Scan on gj",
        "  Recheck Cond: (doc @> '{\"k\": 99}'::jsonb)",
        "  ->  Bitmap Index Scan on gj_doc",
    ], plan
    # Kept up after the restart too.
    c.simple("INSERT INTO gj VALUES (7000, '{\"k\": 99}', '{99}')")
    assert c.simple("SELECT count(*) FROM gj WHERE doc @> '{\"k\": 99}'") == [("18",)]
    c.close()


TRGM_SETUP = [
    "CREATE EXTENSION pg_trgm",
    "CREATE TABLE tw (id int PRIMARY KEY, t text)",
    "INSERT INTO tw SELECT g, 'word' || g || ' ' || md5(g::text) FROM generate_series(1, 2000) g",
    "CREATE INDEX tw_t ON tw USING gin (t gin_trgm_ops)",
    "CHECKPOINT",
    # After the checkpoint: replayed from the log after a crash.
    "UPDATE tw SET t = 'zebra crossing' WHERE id <= 5",
    "DELETE FROM tw WHERE id BETWEEN 100 AND 199",
    "INSERT INTO tw VALUES (5000, 'zebra finch')",
]

TRGM_CHECKS = [
    "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'tw' ORDER BY 1",
    "SELECT id FROM tw WHERE t LIKE '%zebra%' ORDER BY id",
    "SELECT id FROM tw WHERE t % 'word150' ORDER BY id",
    "SELECT count(*) FROM tw WHERE t LIKE 'word1%'",
    "SELECT count(*) FROM tw WHERE t ~ 'ord12[0-9]'",
]


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_restart_keeps_trgm_index(server, tg_dedicated, how):
    """A gin_trgm_ops index (pg_trgm) is kept by a clean restart and by log replay after a
    crash: rebuilt from the rows, it finds what a sequential scan finds, and the planner still
    uses it."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    for q in TRGM_SETUP:
        c.simple(q)
    c.simple("SET enable_bitmapscan = off")
    by_scan = [(q, c.simple(q)) for q in TRGM_CHECKS]
    c.close()
    assert by_scan[1][1] == [(str(i),) for i in [1, 2, 3, 4, 5, 5000]], by_scan
    restart_by(p, how)
    c = p.info.connect_raw()
    c.simple("SET enable_seqscan = off")
    by_index = [(q, c.simple(q)) for q in TRGM_CHECKS]
    assert by_index == by_scan
    plan = c.simple("EXPLAIN (COSTS OFF) SELECT id FROM tw WHERE t LIKE '%zebra%'")
    assert [r[0] for r in plan][:3] == [
        "Bitmap Heap Scan on tw",
        "  Recheck Cond: (t ~~ '%zebra%'::text)",
        "  ->  Bitmap Index Scan on tw_t",
    ], plan
    c.simple("INSERT INTO tw VALUES (7000, 'zebra')")
    assert c.simple("SELECT count(*) FROM tw WHERE t LIKE '%zebra%'") == [("7",)]
    c.close()


STATS_QUERY = (
    "SELECT tablename, attname, null_frac, avg_width, n_distinct, most_common_vals::text, "
    "most_common_freqs::text, histogram_bounds::text, correlation FROM pg_stats "
    "WHERE schemaname = 'public' ORDER BY 1, 2"
)


@TG
@pytest.mark.parametrize("how", ["clean", "kill9", "checkpoint_kill9"])
def test_restart_keeps_statistics(server, tg_dedicated, how):
    """What ANALYZE found (pg_stats, pg_class.reltuples, the planner's estimates) is kept by a
    clean restart, by log replay after a crash, and by a checkpoint image; the newest ANALYZE
    of a table is the one kept."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    c.simple("CREATE TABLE st (id int, k text, v numeric)")
    c.simple(
        "INSERT INTO st SELECT g, 'k' || (g % 12), CASE WHEN g % 5 = 0 THEN NULL ELSE g / 7.0 END "
        "FROM generate_series(1, 2000) g"
    )
    c.simple("ANALYZE st")
    c.simple("CREATE TABLE st2 (a int)")
    c.simple("INSERT INTO st2 SELECT generate_series(1, 10)")
    c.simple("ANALYZE st2")
    if how == "checkpoint_kill9":
        c.simple("CHECKPOINT")
    # A second ANALYZE after more rows: the one a restart must keep.
    c.simple("INSERT INTO st2 SELECT generate_series(11, 300)")
    c.simple("ANALYZE st2")
    stats = c.simple(STATS_QUERY)
    tuples = c.simple("SELECT relname, reltuples FROM pg_class WHERE relname IN ('st', 'st2') ORDER BY 1")
    plan = c.simple("EXPLAIN SELECT * FROM st WHERE k = 'k3'")
    c.close()
    assert tuples == [("st", "2000"), ("st2", "300")], tuples
    assert len(stats) == 4 and any(r[5] for r in stats), stats
    restart_by(p, "clean" if how == "clean" else "kill9")
    c = p.info.connect_raw()
    assert c.simple(STATS_QUERY) == stats
    assert c.simple("SELECT relname, reltuples FROM pg_class WHERE relname IN ('st', 'st2') ORDER BY 1") == tuples
    assert c.simple("EXPLAIN SELECT * FROM st WHERE k = 'k3'") == plan
    c.close()


CONTROL_QUERY = (
    "SELECT s.system_identifier, s.pg_control_last_modified, c.checkpoint_lsn, c.redo_lsn, "
    "c.redo_wal_file, c.next_oid, c.checkpoint_time, c.next_xid "
    "FROM pg_control_system() s, pg_control_checkpoint() c"
)


@TG
def test_control_functions_follow_checkpoints(server, tg_dedicated):
    """pg_control_system's identifier is made once and kept by every restart; the checkpoint
    pg_control_checkpoint reports is the last image: CHECKPOINT moves it past the log written
    before, a clean restart keeps the shutdown image's, a crash's recovery writes a new one."""
    p = tg_dedicated()
    c = p.info.connect_raw()
    first = c.simple(CONTROL_QUERY)[0]
    c.simple("CREATE TABLE ctl (a int)")
    c.simple("INSERT INTO ctl SELECT generate_series(1, 1000)")
    before = c.simple("SELECT pg_current_wal_insert_lsn()")[0][0]
    time.sleep(1.1)  # checkpoint_time has whole seconds
    c.simple("CHECKPOINT")
    after = c.simple(CONTROL_QUERY)[0]
    assert after[0] == first[0]
    assert c.simple(
        f"SELECT '{after[3]}'::pg_lsn >= '{before}'::pg_lsn, '{after[2]}'::pg_lsn >= '{after[3]}'::pg_lsn, "
        f"'{after[4]}' = pg_walfile_name('{after[3]}'::pg_lsn + 1), "
        f"'{after[6]}'::timestamptz > '{first[6]}'::timestamptz, {after[5]} > {first[5]}"
    ) == [("t", "t", "t", "t", "t")]
    c.close()
    restart_by(p, "clean")
    c = p.info.connect_raw()
    shut = c.simple(CONTROL_QUERY)[0]
    assert shut[0] == first[0]
    assert c.simple(f"SELECT '{shut[2]}'::pg_lsn >= '{after[2]}'::pg_lsn") == [("t",)]
    c.simple("INSERT INTO ctl VALUES (1)")
    c.close()
    restart_by(p, "kill9")
    c = p.info.connect_raw()
    rec = c.simple(CONTROL_QUERY)[0]
    assert rec[0] == first[0]
    assert c.simple(f"SELECT '{rec[3]}'::pg_lsn > '{shut[3]}'::pg_lsn") == [("t",)]
    assert c.simple("SELECT count(*) FROM ctl") == [("1001",)]
    c.close()
