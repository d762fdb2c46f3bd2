"""COPY ... FROM STDIN errors and their CONTEXT field, against PostgreSQL 15.

PostgreSQL's COPY FROM error context names the table and the input line, in one of four forms
(copyfrom.c, CopyFromErrorCallback): `line N, column c: "value"` while a field is converted,
`line N, column c: null input` for a NULL, `line N: "line text"` while the line is valid (extra
or missing data, NOT NULL and CHECK violations, defaults), and the bare `line N` for errors
raised where the line buffer no longer holds the row (a unique violation found when a buffer of
rows is flushed, an invalid byte sequence found while reading the line); binary copies never
show data. Each case feeds the same data through psycopg's `cursor.copy` to both servers and
compares SQLSTATE, message, detail and context, then the table's row count (nothing of a failed
COPY is kept)."""

from __future__ import annotations

import psycopg
import pytest

from clientutil import differential

TABLE = "CREATE TABLE ct (a int PRIMARY KEY, b int CHECK (b > 0), c character(3), d text)"


def _rows(n, start=1):
    return "".join(f"{i}\t{i}\tx\tr{i}\n" for i in range(start, start + n))


# (id, setup statements after the table, COPY statement, data chunks (str or bytes)).
CASES = [
    ("bad_int", [], "COPY ct FROM STDIN", ["1\t2\tx\ty\n", "abc\t3\tx\ty\n"]),
    ("bad_int_second_col", [], "COPY ct FROM STDIN", ["1\t2x\tx\ty\n"]),
    ("bad_int_escaped", [], "COPY ct FROM STDIN", ["1\t\\x41\tx\ty\n"]),
    ("check", [], "COPY ct FROM STDIN", ["1\t1\tx\ty\n5\t-1\tx\ty\n"]),
    ("check_escaped_line", [], "COPY ct FROM STDIN", ["5\t-1\t\\t\tdata\\\\with\\nescapes\n"]),
    ("not_null", [], "COPY ct FROM STDIN", ["\\N\t1\tx\ty\n"]),
    ("unique", [], "COPY ct FROM STDIN", ["1\t1\tx\ty\n2\t2\tx\ty\n1\t3\tx\ty\n"]),
    ("unique_existing", ["INSERT INTO ct VALUES (2, 2)"], "COPY ct FROM STDIN", ["1\t1\tx\ty\n2\t2\tx\ty\n"]),
    ("missing", [], "COPY ct FROM STDIN", ["1\t2\n"]),
    ("missing_empty_line", [], "COPY ct FROM STDIN", ["1\t2\tx\ty\n\n"]),
    ("missing_after_bad_field", [], "COPY ct FROM STDIN", ["x\t2\n"]),
    ("csv_missing", [], "COPY ct FROM STDIN (FORMAT csv)", ["1,2\n"]),
    ("extra", [], "COPY ct FROM STDIN", ["1\t2\tx\ty\tz\n"]),
    ("too_long_bpchar", [], "COPY ct FROM STDIN", ["1\t2\tabcd\ty\n"]),
    ("long_line", [], "COPY ct FROM STDIN", ["1\t-2\tx\t" + "y" * 150 + "\n"]),
    # Long lines of short values (the detail shows the values whole).
    ("long_line_escapes", [], "COPY ct FROM STDIN", ["1\t-2\tx\t" + "\\x41" * 30 + "\n"]),
    ("long_line_cut_multibyte", [], "COPY ct FROM STDIN", ["1\t-2\tx\t" + "\\x41" * 20 + "ü" * 20 + "\n"]),
    ("long_value", [], "COPY ct FROM STDIN", ["1" * 150 + "\t2\tx\ty\n"]),
    ("long_line_multibyte", [], "COPY ct FROM STDIN", ["1\t-2\tx\t" + "ü" * 80 + "\n"]),
    ("column_list", [], "COPY ct (b, a) FROM STDIN", ["-3\t1\n"]),
    ("column_list_bad", [], "COPY ct (d, a) FROM STDIN", ["x\tzz\n"]),
    ("header", [], "COPY ct FROM STDIN (FORMAT csv, HEADER)", ["a,b,c,d\n1,2,x,y\n2,-2,x,y\n"]),
    ("csv_bad_int", [], "COPY ct FROM STDIN (FORMAT csv)", ['1,2,x,"y"\n', '"2",q,"x",y\n']),
    ("csv_check", [], "COPY ct FROM STDIN (FORMAT csv)", ['1,-2,"x, y",y\n']),
    ("csv_extra", [], "COPY ct FROM STDIN (FORMAT csv)", ['1,2,x,y,"z"\n']),
    ("csv_not_null", [], "COPY ct FROM STDIN (FORMAT csv)", [",2,x,y\n"]),
    ("crlf", [], "COPY ct FROM STDIN", ["1\t2\tx\ty\r\n2\t-2\tx\ty\r\n"]),
    ("split_line", [], "COPY ct FROM STDIN", ["1\t2\tx\ty\n2\t", "-2\tx\ty\n"]),
    ("no_final_newline", [], "COPY ct FROM STDIN", ["1\t2\tx\ty\n2\t-2\tx\ty"]),
    ("invalid_utf8", [], "COPY ct FROM STDIN", [b"1\t2\tx\ty\n2\t2\tx\t\xff\n"]),
    ("latin1_line", ["SET client_encoding TO 'LATIN1'"], "COPY ct FROM STDIN", [b"1\t-2\tx\t\xfc\n"]),
    ("latin1_value", ["SET client_encoding TO 'LATIN1'"], "COPY ct FROM STDIN", [b"1\t\xfc\tx\ty\n"]),
    ("second_batch_check", [], "COPY ct FROM STDIN", [_rows(1500) + "1501\t-1\tx\ty\n"]),
    ("second_batch_unique", [], "COPY ct FROM STDIN", [_rows(1500) + "7\t1\tx\ty\n"]),
    ("batch_edge_unique", [], "COPY ct FROM STDIN", [_rows(999) + "7\t1\tx\ty\n" + _rows(5, 2000)]),
    ("batch_edge_check", [], "COPY ct FROM STDIN", [_rows(1000) + "1001\t-1\tx\ty\n"]),
    ("default_error", ["CREATE SEQUENCE cts MAXVALUE 2",
                       "ALTER TABLE ct ALTER COLUMN a SET DEFAULT nextval('cts')"],
     "COPY ct (b) FROM STDIN", ["1\n2\n3\n"]),
    ("quoted_name", ['CREATE TABLE "Ct x" (a int)'], 'COPY "Ct x" FROM STDIN', ["q\n"]),
    ("fk", ["CREATE TABLE ctr (r int REFERENCES ct)", "INSERT INTO ct VALUES (1, 1)"],
     "COPY ctr FROM STDIN", ["1\n2\n"]),
    ("ok", [], "COPY ct FROM STDIN", ["1\t2\tx\ty\n2\t\\N\t\\N\t\\N\n"]),
    # Domain columns: their constraints are checked as the field is read (its column named).
    ("domain_check", ["DROP DOMAIN IF EXISTS ctd CASCADE", "CREATE DOMAIN ctd int CHECK (VALUE > 0)",
                      "ALTER TABLE ct ADD COLUMN e ctd"],
     "COPY ct (a, e) FROM STDIN", ["1\t5\n2\t-5\n"]),
    ("domain_not_null", ["DROP DOMAIN IF EXISTS ctn CASCADE", "CREATE DOMAIN ctn text NOT NULL",
                         "ALTER TABLE ct ADD COLUMN e ctn"],
     "COPY ct (a, e) FROM STDIN", ["1\tq\n2\t\\N\n"]),
    ("domain_default", ["DROP DOMAIN IF EXISTS ctdd CASCADE",
                        "CREATE DOMAIN ctdd int NOT NULL DEFAULT 7 CHECK (VALUE < 5)",
                        "ALTER TABLE ct ADD COLUMN e ctdd DEFAULT 1"],
     "COPY ct (a) FROM STDIN", ["1\n"]),
    # Generated columns: computed for each copied row (a CHECK on one fails with the line),
    # and refused by name.
    ("generated_check", ["ALTER TABLE ct ADD COLUMN g int GENERATED ALWAYS AS (a * 10) STORED "
                         "CHECK (g < 25)"],
     "COPY ct (a, b) FROM STDIN", ["1\t1\n2\t2\n3\t3\n"]),
    ("generated_named", ["ALTER TABLE ct ADD COLUMN g int GENERATED ALWAYS AS (a * 10) STORED"],
     "COPY ct (a, g) FROM STDIN", ["1\t10\n"]),
    ("generated_left_out", ["ALTER TABLE ct ADD COLUMN g int GENERATED ALWAYS AS (a * 10) STORED "
                            "UNIQUE"],
     "COPY ct FROM STDIN", ["1\t2\tx\ty\n2\t3\tx\ty\n"]),
    ("domain_varchar", ["DROP DOMAIN IF EXISTS ctv CASCADE", "CREATE DOMAIN ctv varchar(3)",
                        "ALTER TABLE ct ADD COLUMN e ctv"],
     "COPY ct (a, e) FROM STDIN", ["1\tabc\n2\tabcd\n"]),
]


def _diag(e: psycopg.Error):
    d = e.diag
    return (d.sqlstate, d.message_primary, d.message_detail, d.context)


def _run(s, setup, stmt, chunks, binary_types=None):
    with psycopg.connect(s.conninfo, connect_timeout=10, autocommit=True) as conn:
        cur = conn.cursor()
        cur.execute('DROP TABLE IF EXISTS ctr, ct, "Ct x"')
        cur.execute("DROP SEQUENCE IF EXISTS cts")
        cur.execute(TABLE)
        for q in setup:
            cur.execute(q)
        try:
            with cur.copy(stmt) as copy:
                if binary_types:
                    copy.set_types(binary_types)
                for ch in chunks:
                    if isinstance(ch, tuple):
                        copy.write_row(ch)
                    else:
                        copy.write(ch)
            out = ("ok", cur.rowcount)
        except psycopg.Error as e:
            out = _diag(e) if e.diag.sqlstate else ("client", type(e).__name__, str(e))
        count = cur.execute("SELECT count(*) FROM ct").fetchone()[0]
        cur.execute('DROP TABLE IF EXISTS ctr, ct, "Ct x"')
        cur.execute("DROP SEQUENCE IF EXISTS cts")
        return out, count


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_copy_from_error_context(pg, server, case):
    _, setup, stmt, chunks = case
    differential(pg, server, lambda s: _run(s, setup, stmt, chunks))


BIN_TYPES = ["int4", "int4", "text", "text"]
BIN_CASES = [
    ("bin_check", [(1, 1, "x", "y"), (2, -1, "x", "y")]),
    ("bin_not_null", [(None, 1, "x", "y")]),
    ("bin_unique", [(1, 1, "x", "y"), (1, 2, "x", "y")]),
    ("bin_too_long", [(1, 1, "abcd", "y")]),
    ("bin_padded", [(1, 1, "ab", "y"), (2, -1, "ab", "y")]),
]


@pytest.mark.parametrize("case", BIN_CASES, ids=[c[0] for c in BIN_CASES])
def test_copy_from_binary_error_context(pg, server, case):
    _, rows = case
    differential(pg, server, lambda s: _run(s, [], "COPY ct FROM STDIN (FORMAT binary)", rows, BIN_TYPES))


def test_copy_from_binary_bad_field(pg, server):
    """A field whose bytes are not a valid int4 (3 bytes long): the column is named, no value."""
    sig = b"PGCOPY\n\xff\r\n\x00" + b"\x00" * 8
    row = b"\x00\x04" + b"\x00\x00\x00\x03abc" + b"\xff\xff\xff\xff" * 3
    differential(pg, server, lambda s: _run(s, [], "COPY ct FROM STDIN (FORMAT binary)", [sig + row + b"\xff\xff"]))


def test_copy_from_binary_bad_signature(pg, server):
    """A bad file header: PostgreSQL reads it before the rows, with no COPY context."""
    differential(pg, server, lambda s: _run(s, [], "COPY ct FROM STDIN (FORMAT binary)", [b"PGCOPY\nnot"]))


def test_copy_fail_context(pg, server):
    """CopyFail from the client after some rows: 57014 with the line the server was reading."""
    def observe(s):
        c = s.connect_raw()
        try:
            c.query("DROP TABLE IF EXISTS ct")
            c.query(TABLE)
            c.send_query("COPY ct FROM STDIN")
            c.read_until("G")
            # Two whole lines and part of a third.
            c.copy_data(b"1\t2\tx\ty\n2\t2\tx\ty\n3\t").copy_fail("client gave up").push()
            err = [m.fields for m in c.read_until_ready() if m.type == "E"]
            out = [(f.get("C"), f.get("M"), f.get("W")) for f in err]
            count = c.simple("SELECT count(*) FROM ct")
            c.query("DROP TABLE ct")
            return out, count
        finally:
            c.close()
    differential(pg, server, observe)
