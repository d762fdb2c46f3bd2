"""COPY ... FROM STDIN into a table with nothing to check but NOT NULL, against PostgreSQL 15.

Threadgres packs such rows straight from their text fields (sql/exec/copy_load.rs) and sends any
line it cannot take as it is (a field that does not convert, a NULL in a NOT NULL column, a
value longer than its column, which may be trailing spaces to cut) through the INSERT operator.
Each case copies the same data into the same table on both servers and compares the outcome
(SQLSTATE, message, detail and context of an error) and then every row, in heap order (no
ORDER BY: rows must be stored in the order of the data whichever way they went in)."""

from __future__ import annotations

import time

import psycopg
import pytest

from clientutil import differential

SETUP = [
    "DROP TABLE IF EXISTS cd",
    "CREATE TABLE cd (a int NOT NULL, gone int, b bigint, s smallint, c char(5),"
    " v varchar(4), t text, d date, n numeric(6,2), x int)",
    "ALTER TABLE cd DROP COLUMN gone",
]


def _line(a, b="1", s="2", c="ab", v="xy", t="t", d="2024-01-02", n="1.5", x="\\N"):
    return "\t".join([a, b, s, c, v, t, d, n, x]) + "\n"


def _many(n, start=1):
    return "".join(_line(str(i), t=f"row{i}") for i in range(start, start + n))


# (id, setup after the table, COPY statement, data chunks)
CASES = [
    ("ok", [], "COPY cd FROM STDIN",
     [_line("1"), _line("2", b="\\N", c="\\N", t="a\\tb\\\\c\\n"), _line(" 3 ", b="+9", s="-0")]),
    ("bigint_edges", [], "COPY cd FROM STDIN",
     [_line("1", b="9223372036854775807"), _line("2", b="-9223372036854775808")]),
    ("bigint_overflow", [], "COPY cd FROM STDIN", [_line("1"), _line("2", b="9223372036854775808")]),
    ("int_overflow", [], "COPY cd FROM STDIN", [_line("2147483648")]),
    ("smallint_overflow", [], "COPY cd FROM STDIN", [_line("1"), _line("2", s="40000")]),
    ("int_bad", [], "COPY cd FROM STDIN", [_line("1"), _line("1x")]),
    ("int_empty", [], "COPY cd FROM STDIN", [_line("")]),
    ("int_long_zeros", [], "COPY cd FROM STDIN", [_line("00000000000000000000000042")]),
    ("not_null", [], "COPY cd FROM STDIN", [_line("1"), _line("2"), _line("\\N")]),
    ("bpchar_spaces_cut", [], "COPY cd FROM STDIN",
     [_line("1"), _line("2", c="ab       "), _line("3", c="abcde")]),
    ("bpchar_too_long", [], "COPY cd FROM STDIN", [_line("1"), _line("2", c="abcdef")]),
    ("bpchar_multibyte", [], "COPY cd FROM STDIN", [_line("1", c="üß"), _line("2", c="üüüüü")]),
    ("varchar_spaces_cut", [], "COPY cd FROM STDIN", [_line("1", v="abc    "), _line("2")]),
    ("varchar_too_long", [], "COPY cd FROM STDIN", [_line("1"), _line("2", v="abcde")]),
    ("varchar_multibyte", [], "COPY cd FROM STDIN", [_line("1", v="üüüü"), _line("2", v="üüüüü")]),
    ("date_bad", [], "COPY cd FROM STDIN", [_line("1", d="2024-13-01")]),
    ("numeric_typmod", [], "COPY cd FROM STDIN", [_line("1", n="1.005"), _line("2", n="12345.678")]),
    ("extra", [], "COPY cd FROM STDIN", [_line("1")[:-1] + "\tmore\n"]),
    ("missing", [], "COPY cd FROM STDIN", ["1\t2\n"]),
    ("columns_null", [], "COPY cd (t, a) FROM STDIN", ["x\t1\ny\t2\n"]),
    ("columns_not_null", [], "COPY cd (t) FROM STDIN", ["x\n"]),
    ("columns_default", ["ALTER TABLE cd ALTER COLUMN x SET DEFAULT 7"], "COPY cd (a, t) FROM STDIN",
     ["1\tx\n2\ty\n"]),
    ("csv", [], "COPY cd FROM STDIN (FORMAT csv)",
     ['1,2,3,"a,b",x,"say ""hi""",2024-02-03,2.25,\n', '2,,,,,,,,5\n']),
    ("csv_spaces_cut", [], "COPY cd FROM STDIN (FORMAT csv)", ['1,2,3,"a      ",x,t,,,\n']),
    ("many_with_a_cut_in_between", [], "COPY cd FROM STDIN",
     [_many(1200) + _line("1201", c="zz      ") + _many(1300, 1202)]),
    ("many_then_error", [], "COPY cd FROM STDIN", [_many(2500) + _line("2501", b="q")]),
    ("split_lines", [], "COPY cd FROM STDIN", [_line("1") + _line("2")[:5], _line("2")[5:] + _line("3")]),
    # Copies past a few 64 KiB chunks: the chunks after the first are converted on a helper
    # thread, which hands a line it cannot take back to the session.
    ("big", [], "COPY cd FROM STDIN", [_many(10000)]),
    ("big_cut_in_a_helper_chunk", [], "COPY cd FROM STDIN",
     [_many(4999) + _line("5000", c="zz      ") + _many(5000, 5001)]),
    ("big_error_in_a_helper_chunk", [], "COPY cd FROM STDIN",
     [_many(4999) + _line("5000", b="q") + _many(5000, 5001)]),
    ("big_not_null_late", [], "COPY cd FROM STDIN", [_many(8999) + _line("\\N") + _many(1000, 9001)]),
    ("big_end_marker_in_a_helper_chunk", [], "COPY cd FROM STDIN",
     [_many(4999) + "\\.\n" + _many(5000, 5001)]),
    ("big_invalid_utf8_in_a_helper_chunk", [], "COPY cd FROM STDIN",
     [_many(4999).encode() + _line("5000", t="x").encode().replace(b"\tx\t", b"\t\xff\t")
      + _many(5000, 5001).encode()]),
    ("big_csv", [], "COPY cd FROM STDIN (FORMAT csv)",
     ["".join(f'{i},{i},2,"a,b",xy,"q""{i}",2024-01-02,1.5,\n' for i in range(1, 10001))]),
    ("big_columns", [], "COPY cd (t, a) FROM STDIN", ["".join(f"r{i}\t{i}\n" for i in range(1, 20001))]),
    ("big_many_messages", [], "COPY cd FROM STDIN", [_line(str(i)) for i in range(1, 6001)]),
    ("end_marker", [], "COPY cd FROM STDIN", [_line("1") + "\\.\n"]),
]


def _diag(e: psycopg.Error):
    d = e.diag
    return (d.sqlstate, d.message_primary, d.message_detail, d.context)


def _run(s, setup, stmt, chunks):
    with psycopg.connect(s.conninfo, connect_timeout=10, autocommit=True) as conn:
        cur = conn.cursor()
        for q in SETUP + setup:
            cur.execute(q)
        try:
            with cur.copy(stmt) as copy:
                for ch in chunks:
                    copy.write(ch)
            out = ("ok", cur.rowcount)
        except psycopg.Error as e:
            out = _diag(e)
        rows = cur.execute("SELECT * FROM cd").fetchall()
        cur.execute("DROP TABLE cd")
        return out, rows


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_copy_direct(pg, server, case):
    _, setup, stmt, chunks = case
    differential(pg, server, lambda s: _run(s, setup, stmt, chunks))


def test_copy_read_only_transaction(pg, server):
    """Refused before the copy starts: no CopyInResponse, no context."""
    def observe(s):
        with psycopg.connect(s.conninfo, connect_timeout=10, autocommit=True) as conn:
            cur = conn.cursor()
            for q in SETUP:
                cur.execute(q)
            cur.execute("CREATE TEMP TABLE cdt (a int)")
            cur.execute("BEGIN READ ONLY")
            try:
                with cur.copy("COPY cd FROM STDIN") as copy:
                    copy.write(_line("1"))
                out = "ok"
            except psycopg.Error as e:
                out = _diag(e)
            cur.execute("ROLLBACK")
            cur.execute("DROP TABLE cd")
            return out
    differential(pg, server, observe)


def test_copy_savepoint_rollback(pg, server):
    """Rows a COPY wrote under a savepoint go when it is rolled back; a failed COPY's too."""
    def observe(s):
        with psycopg.connect(s.conninfo, connect_timeout=10, autocommit=True) as conn:
            cur = conn.cursor()
            for q in SETUP:
                cur.execute(q)
            cur.execute("BEGIN")
            cur.execute("SAVEPOINT a")
            with cur.copy("COPY cd FROM STDIN") as copy:
                copy.write(_many(3))
            cur.execute("ROLLBACK TO a")
            with cur.copy("COPY cd FROM STDIN") as copy:
                copy.write(_many(2, 10))
            cur.execute("SAVEPOINT b")
            try:
                with cur.copy("COPY cd FROM STDIN") as copy:
                    copy.write(_many(5, 20) + _line("\\N"))
            except psycopg.Error as e:
                err = e.diag.sqlstate
            cur.execute("ROLLBACK TO b")
            cur.execute("COMMIT")
            rows = cur.execute("SELECT a, t FROM cd").fetchall()
            cur.execute("DROP TABLE cd")
            return err, rows
    differential(pg, server, observe)


def test_copy_first_statement_takes_repeatable_read_snapshot(pg, server):
    """A COPY that opens a REPEATABLE READ transaction fixes its snapshot: a row another
    session commits afterwards is not seen by the transaction's next query."""
    def observe(s):
        with psycopg.connect(s.conninfo, connect_timeout=10, autocommit=True) as c1, \
                psycopg.connect(s.conninfo, connect_timeout=10, autocommit=True) as c2:
            cur = c1.cursor()
            for q in SETUP:
                cur.execute(q)
            cur.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            with cur.copy("COPY cd FROM STDIN") as copy:
                copy.write(_line("1"))
            c2.execute("INSERT INTO cd (a) VALUES (2)")
            seen = cur.execute("SELECT a FROM cd ORDER BY a").fetchall()
            cur.execute("COMMIT")
            after = cur.execute("SELECT a FROM cd ORDER BY a").fetchall()
            cur.execute("DROP TABLE cd")
            return seen, after
    differential(pg, server, observe)


def test_copy_counts_inserted_rows(pg, server):
    """pg_stat_user_tables counts the rows a COPY inserted (the background vacuum reads the
    same counter). The failing COPY fails at its first line: where PostgreSQL fails later, the
    rows before are counted or not depending on whether its multi-insert buffer had been
    flushed to the table (threadgres counts them: they are garbage for vacuum)."""
    def observe(s):
        with psycopg.connect(s.conninfo, connect_timeout=10, autocommit=True) as conn:
            cur = conn.cursor()
            for q in SETUP:
                cur.execute(q)
            with cur.copy("COPY cd FROM STDIN") as copy:
                copy.write(_many(30))
            try:
                with cur.copy("COPY cd FROM STDIN") as copy:
                    copy.write(_line("\\N") + _many(5, 100))
            except psycopg.Error:
                pass
            # PostgreSQL's statistics reach the view within a second of the session going idle.
            counts = None
            for _ in range(40):
                counts = cur.execute(
                    "SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'cd'").fetchone()
                if counts == (30,):
                    break
                time.sleep(0.1)
            cur.execute("DROP TABLE cd")
            return counts
    differential(pg, server, observe)


@pytest.mark.parametrize("ddl", [
    "CREATE TABLE ci (id int GENERATED ALWAYS AS IDENTITY, v text)",
    "CREATE TABLE ci (id int GENERATED BY DEFAULT AS IDENTITY, v text)",
    "CREATE TABLE ci (id serial, v text)",
    "CREATE TABLE ci (id int DEFAULT 7, v text NOT NULL)",
])
def test_copy_leaves_out_a_column_with_a_default(pg, server, ddl):
    """Columns the data leaves out get their defaults (identity and serial columns their
    sequence's values), in small and big copies alike."""
    def observe(s):
        with psycopg.connect(s.conninfo, connect_timeout=10, autocommit=True) as conn:
            cur = conn.cursor()
            cur.execute("DROP TABLE IF EXISTS ci")
            cur.execute(ddl)
            with cur.copy("COPY ci (v) FROM STDIN") as copy:
                copy.write("a\nb\n")
            with cur.copy("COPY ci (v) FROM STDIN") as copy:
                copy.write("".join(f"r{i}\n" for i in range(30000)))
            rows = cur.execute("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM ci").fetchall()
            first = cur.execute("SELECT * FROM ci LIMIT 3").fetchall()
            cur.execute("DROP TABLE ci")
            return rows, first
    differential(pg, server, observe)


@pytest.mark.parametrize("case", ["ok", "bad_line", "long_line"])
def test_copy_one_big_message(pg, server, case):
    """The whole data in one CopyData message of about 1 MB (threadgres cuts it into chunks):
    all rows, a bad line in the middle (its line number), a line longer than a chunk."""
    lines = [_line(str(i), t=f"r{i}") for i in range(1, 25001)]
    if case == "bad_line":
        lines[14321] = _line("14322", s="x")
    if case == "long_line":
        lines[9000] = _line("9001", t="y" * 200_000)

    def observe(s):
        c = s.connect_raw()
        try:
            for q in SETUP:
                c.query(q)
            c.send_query("COPY cd FROM STDIN")
            c.read_until("G")
            c.copy_data("".join(lines).encode()).copy_done().push()
            msgs = c.read_until_ready()
            out = [(m.type, m.fields.get("C"), m.fields.get("M"), m.fields.get("W"))
                   if m.type == "E" else (m.type,) for m in msgs if m.type in "EC"]
            summary = c.simple("SELECT count(*), sum(a), sum(length(t)) FROM cd")
            c.query("DROP TABLE cd")
            return out, summary
        finally:
            c.close()
    differential(pg, server, observe)
