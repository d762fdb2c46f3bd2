"""Deferrable constraints where threadgres departs from PostgreSQL on purpose (the rest is in
diff/deferrable.sql): a DEFERRABLE unique or primary key would be checked at commit, which is
not done yet, so it is refused with 0A000 instead of being checked at once."""

from __future__ import annotations

import pytest

import pgwire

TG = pytest.mark.parametrize("server", ["threadgres"], indirect=True)


@TG
@pytest.mark.parametrize("ddl", [
    "CREATE TABLE df_u (a int UNIQUE DEFERRABLE)",
    "CREATE TABLE df_u (a int PRIMARY KEY INITIALLY DEFERRED)",
    "CREATE TABLE df_u (a int, b int, UNIQUE (a, b) DEFERRABLE INITIALLY IMMEDIATE)",
    "CREATE TABLE df_u (a int, PRIMARY KEY (a) DEFERRABLE INITIALLY DEFERRED)",
    "ALTER TABLE df_v ADD CONSTRAINT df_v_a UNIQUE (a) DEFERRABLE",
    "ALTER TABLE df_v ADD PRIMARY KEY (a) INITIALLY DEFERRED",
])
def test_deferrable_unique_and_primary_key_are_refused(server, ddl):
    with server.connect_raw() as c:
        c.simple("DROP TABLE IF EXISTS df_u, df_v")
        c.simple("CREATE TABLE df_v (a int)")
        with pytest.raises(pgwire.ServerError) as e:
            c.simple(ddl)
        assert e.value.fields.get("C") == "0A000"
        assert "DEFERRABLE unique and primary key" in e.value.fields.get("M", "")
        # Nothing was made, and NOT DEFERRABLE is accepted.
        assert c.simple("SELECT count(*) FROM pg_constraint WHERE conrelid = 'df_v'::regclass") == [("0",)]
        c.simple("CREATE TABLE df_u (a int UNIQUE NOT DEFERRABLE INITIALLY IMMEDIATE)")
        assert c.simple("SELECT condeferrable FROM pg_constraint WHERE conrelid = 'df_u'::regclass") == [("f",)]
        c.simple("DROP TABLE df_u, df_v")
