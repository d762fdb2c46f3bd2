"""pg_relation_size and its kin on threadgres: rows live in memory, so a size is the memory a
relation's row versions or index entries take, and it grows with the rows as a file would
(the cases where both servers agree, empty tables, views, forks and errors, are in
diff/extensions.sql)."""

from __future__ import annotations

import pytest

TG = pytest.mark.parametrize("server", ["threadgres"], indirect=True)


def sizes(c, table: str) -> tuple[int, ...]:
    row = c.simple(
        f"SELECT pg_relation_size('{table}'), pg_table_size('{table}'), "
        f"pg_indexes_size('{table}'), pg_total_relation_size('{table}'), "
        f"pg_relation_size('{table}_pkey'), pg_database_size(current_database())")[0]
    return tuple(int(v) for v in row)


@TG
def test_sizes_follow_the_rows(server):
    c = server.connect_raw()
    c.simple("DROP TABLE IF EXISTS sz_grow")
    c.simple("CREATE TABLE sz_grow (id int PRIMARY KEY, t text)")
    c.simple("INSERT INTO sz_grow SELECT g, repeat('x', 100) FROM generate_series(1, 5000) g")
    rel, table, idx, total, pkey, db = sizes(c, "sz_grow")
    # At least the text bytes of the rows, and each index entry.
    assert rel >= 5000 * 100 and rel == table
    assert idx >= 5000 * 8 and idx == pkey
    assert total == rel + idx and db >= total
    c.simple("INSERT INTO sz_grow SELECT g, repeat('y', 100) FROM generate_series(5001, 10000) g")
    rel2, _, idx2, total2, _, db2 = sizes(c, "sz_grow")
    assert rel2 >= 2 * rel - 1000 and idx2 >= 2 * idx - 1000
    assert total2 > total and db2 > db
    # Dead versions count until vacuum reclaims their rows.
    c.simple("UPDATE sz_grow SET t = t || 'z'")
    rel3 = sizes(c, "sz_grow")[0]
    assert rel3 > rel2
    c.simple("DROP TABLE sz_grow")
