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
