"""Extensions where the differential scripts cannot reach, on PostgreSQL 15 and threadgres
alike: an extension the server does not have is refused with the same SQLSTATE and message
(the DETAIL names PostgreSQL's control-file path there and threadgres' built-in list here),
and a LANGUAGE internal function needs a symbol the server has."""

from __future__ import annotations

import pytest

import pgwire


def test_an_extension_the_server_lacks_is_refused(server):
    c = server.connect_raw()
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("CREATE EXTENSION no_such_extension")
    assert e.value.fields["C"] == "0A000"
    assert e.value.fields["M"] == 'extension "no_such_extension" is not available'
    assert "D" in e.value.fields
    # The session goes on.
    assert c.simple("SELECT 1") == [("1",)]


def test_language_internal_needs_a_known_symbol(server):
    c = server.connect_raw()
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("CREATE FUNCTION ext_nothing() RETURNS int LANGUAGE internal AS 'no_such_symbol'")
    assert e.value.fields["C"] == "42883"
    assert e.value.fields["M"] == 'there is no built-in function named "no_such_symbol"'


def test_a_column_default_calls_an_extension_function(server):
    c = server.connect_raw()
    c.simple('DROP TABLE IF EXISTS ext_items')
    c.simple('DROP EXTENSION IF EXISTS "uuid-ossp"')
    c.simple('CREATE EXTENSION "uuid-ossp"')
    c.simple("CREATE TABLE ext_items (id uuid PRIMARY KEY DEFAULT uuid_generate_v4(), n int)")
    c.simple("INSERT INTO ext_items (n) SELECT g FROM generate_series(1, 200) g")
    assert c.simple("SELECT count(DISTINCT id), count(*), "
                    "bool_and(substr(id::text, 15, 1) = '4') FROM ext_items") == [
        ("200", "200", "t")]
    c.simple("DROP TABLE ext_items")
    c.simple('DROP EXTENSION "uuid-ossp"')


TG = pytest.mark.parametrize("server", ["threadgres"], indirect=True)


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_hstore_columns_survive_a_restart(server, tg_dedicated, how):
    """The hstore type CREATE EXTENSION made (its OID given then), a table's hstore column
    and its committed values are all there after a clean restart and after kill -9; the
    extension still knows its type, so DROP EXTENSION is refused while the column uses it."""
    import signal

    p = tg_dedicated()
    c = p.info.connect_raw()
    c.simple("CREATE EXTENSION hstore")
    c.simple("CREATE TABLE ext_kv (id int PRIMARY KEY, h hstore)")
    c.simple("INSERT INTO ext_kv VALUES (1, 'b=>2, a=>1'), (2, 'k=>NULL'), (3, NULL), (4, '')")
    c.simple("UPDATE ext_kv SET h = h || 'c=>\"x y\"' WHERE id = 1")
    queries = [
        "SELECT id, h, h -> 'a', h ? 'k' FROM ext_kv ORDER BY id",
        "SELECT t.oid, t.typname, t.typarray FROM pg_type t WHERE typname IN ('hstore', '_hstore') "
        "ORDER BY 2",
        "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
        "WHERE attrelid = 'ext_kv'::regclass AND attname = 'h'",
        "SELECT extname, extversion FROM pg_extension WHERE extname = 'hstore'",
    ]
    before = [c.simple(q) for q in queries]
    c.close()
    assert before[0][0] == ("1", '"a"=>"1", "b"=>"2", "c"=>"x y"', "1", "f")
    if how == "clean":
        p.restart()
    else:
        p.proc.send_signal(signal.SIGKILL)
        p.proc.wait(10)
        p.start()
    c = p.info.connect_raw()
    assert [c.simple(q) for q in queries] == before
    c.simple("INSERT INTO ext_kv VALUES (5, 'z=>26')")
    assert c.simple("SELECT h FROM ext_kv WHERE h @> 'z=>26'") == [('"z"=>"26"',)]
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("DROP EXTENSION hstore")
    assert e.value.fields["C"] == "2BP01"
    c.simple("DROP TABLE ext_kv")
    c.simple("DROP EXTENSION hstore")
    assert c.simple("SELECT count(*) FROM pg_type WHERE typname = 'hstore'") == [("0",)]


@TG
@pytest.mark.parametrize("how", ["clean", "kill9"])
def test_citext_columns_survive_a_restart(server, tg_dedicated, how):
    """A citext column, its values as written and its UNIQUE index (whose keys compare
    case-insensitively) are all there after a clean restart and after kill -9: a value
    differing only in case is still a duplicate (23505), and lookups still fold case."""
    import signal

    p = tg_dedicated()
    c = p.info.connect_raw()
    c.simple("CREATE EXTENSION citext")
    c.simple("CREATE TABLE ext_ci (id int PRIMARY KEY, email citext UNIQUE, tags citext[])")
    c.simple("INSERT INTO ext_ci VALUES (1, 'A@x', '{One,TWO}'), (2, 'b@Y', NULL), (3, NULL, '{}')")
    c.simple("UPDATE ext_ci SET email = 'C@z' WHERE id = 3")
    queries = [
        "SELECT id, email, tags FROM ext_ci ORDER BY email",
        "SELECT id FROM ext_ci WHERE email = 'a@X' OR 'one' = ANY (tags) ORDER BY id",
        "SELECT t.oid, t.typname, t.typarray, t.typcategory FROM pg_type t "
        "WHERE typname IN ('citext', '_citext') ORDER BY 2",
    ]
    before = [c.simple(q) for q in queries]
    c.close()
    assert before[0] == [("1", "A@x", "{One,TWO}"), ("2", "b@Y", None), ("3", "C@z", "{}")]
    assert before[1] == [("1",)]
    if how == "clean":
        p.restart()
    else:
        p.proc.send_signal(signal.SIGKILL)
        p.proc.wait(10)
        p.start()
    c = p.info.connect_raw()
    assert [c.simple(q) for q in queries] == before
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("INSERT INTO ext_ci VALUES (4, 'a@X', NULL)")
    assert e.value.fields["C"] == "23505"
    with pytest.raises(pgwire.ServerError) as e:
        c.simple("DROP EXTENSION citext")
    assert e.value.fields["C"] == "2BP01"
    c.simple("DROP TABLE ext_ci")
    c.simple("DROP EXTENSION citext")
    assert c.simple("SELECT count(*) FROM pg_type WHERE typname = 'citext'") == [("0",)]
