"""Client encodings against both servers: a session started (or SET) with a client_encoding
other than UTF8 sends and receives every text in that encoding, and characters the encoding
lacks fail as in PostgreSQL (22P05; 22021 for bytes that are no character; FATAL for a
notification). Each test observes what the client sees on PostgreSQL 15 and on threadgres, and
the observations must be equal; round trips are also checked against the text sent.

Clients: the raw protocol client (pgwire.py: every message's bytes), psycopg 3 (text and
binary formats) and asyncpg (binary formats, prepared statements)."""

from __future__ import annotations

import codecs

import asyncpg
import psycopg
import pytest

from clientutil import arun, differential
from pgwire import Conn, ConnectionClosed

# (client_encoding as a client spells it, Python codec, text with non-ASCII characters the
# encoding has). The spellings exercise PostgreSQL's aliases and case-insensitive names.
ENCODINGS = [
    ("latin1", "latin-1", "café naïve ÿ"),
    ("ISO-8859-2", "iso8859-2", "Zażółć gęślą"),
    ("LATIN5", "iso8859-9", "İstanbul ğş"),
    ("latin9", "iso8859-15", "€ œuvre"),
    ("win1252", "cp1252", "€ “quotes” café"),
    ("Windows1251", "cp1251", "Привет, мир"),
    ("WIN1250", "cp1250", "Příliš žluťoučký"),
    ("WIN1253", "cp1253", "Καλημέρα"),
    ("WIN1256", "cp1256", "مرحبا"),
    ("WIN866", "cp866", "Привет"),
    ("WIN874", "cp874", "สวัสดี"),
    ("KOI8R", "koi8-r", "Привет"),
    ("koi8u", "koi8-u", "Привіт ґанок"),
    ("ISO_8859_5", "iso8859-5", "Привет"),
    ("ISO_8859_7", "iso8859-7", "Καλημέρα"),
    ("ISO_8859_8", "iso8859-8", "שלום"),
    ("Shift_JIS", "shift_jis", "日本語テキスト ｶﾅ"),
    ("EUC_JP", "euc_jp", "日本語テキスト"),
    ("EUC_KR", "euc_kr", "한국어 텍스트"),
    ("UHC", "cp949", "한국어 갂"),
    ("EUC_CN", "gb2312", "中文文本"),
    ("GBK", "gbk", "中文 丂"),
    ("GB18030", "gb18030", "中文 𠀀"),
    ("big5", "big5", "中文字 丁"),
    # Hanja whose JOHAB trail bytes PostgreSQL reads back (it refuses Hangul's: see
    # test_encodings_cjk.py).
    ("JOHAB", "johab", "漢字 韓國語"),
    ("EUC_TW", "euc_tw_sample", "中文 乂"),
    ("EUC-JIS-2004", "euc_jis_2004", "日本語 か\u309a"),
    ("Shift_JIS_2004", "shift_jis_2004", "日本語 か\u309a ｶﾅ"),
    ("SQL_ASCII", "utf-8", "café ✓"),
    ("UTF8", "utf-8", "café ✓ 😀"),
]
IDS = [e[0] for e in ENCODINGS]


def _euc_tw_sample(name):
    """Python has no EUC-TW codec: this one knows the sample's characters (CNS 11643 plane 1,
    and plane 2 in its four-byte form)."""
    if name != "euc_tw_sample":
        return None
    table = {"中": b"\xc4\xa4", "文": b"\xc5\xe5", "乂": b"\x8e\xa2\xa1\xa1"}

    def encode(text, errors="strict"):
        return b"".join(table.get(ch) or ch.encode("ascii") for ch in text), len(text)

    def decode(data, errors="strict"):
        raise NotImplementedError

    return codecs.CodecInfo(encode, decode, name=name)


codecs.register(_euc_tw_sample)

# A character each encoding lacks (None: it has them all).
MISSING = {name: ("✓" if name not in ("GB18030", "SQL_ASCII", "UTF8") else None) for name in IDS}
MISSING.update({"EUC-JIS-2004": "😀", "Shift_JIS_2004": "😀"})  # JIS X 0213 has ✓

# Bytes that are no character of the encoding, or a character without equivalent in UTF8.
BAD_BYTES = {
    "win1252": b"\x81",
    "WIN874": b"\x81",
    "Shift_JIS": b"\x82'",
    "EUC_JP": b"\xa4",
    "EUC_KR": b"\x81\x41",
    "EUC_CN": b"\xa1",
    "GBK": b"\x80",
    "GB18030": b"\x81\x30",
    "big5": b"\x8d\x20",
    "JOHAB": b"\x88\x61",
    "EUC_TW": b"\x8e\xa8\xa1\xa1",
    "EUC-JIS-2004": b"\x8f\xa2\xa1",
    "Shift_JIS_2004": b"\x82\xf5\x82",
    "SQL_ASCII": b"\xe9",
    "UTF8": b"\xc3\x28",
}

ERROR_FIELDS = "SVCMDHPstcdn"


def _msgs(msgs):
    """What the client sees, message by message: the bytes that matter, not pids or source
    locations."""
    out = []
    for m in msgs:
        if m.type in "EN":
            out.append((m.type, {k: v for k, v in m.fields.items() if k in ERROR_FIELDS}))
        elif m.type == "T":
            out.append(("T", [(c.name, c.type_oid, c.format) for c in m.fields]))
        elif m.type == "A":
            out.append(("A", m.fields[1:], m.raw[4:]))
        elif m.type == "K":
            out.append(("K",))
        elif m.type == "S" and m.fields[0] in ("server_version", "application_name"):
            continue
        else:
            out.append((m.type, m.raw))
    return out


def _connect_raw(s, enc):
    return Conn.connect(s.host, s.port, user=s.user, database=s.database,
                        params={"client_encoding": enc})


@pytest.mark.parametrize("enc,codec,sample", ENCODINGS, ids=IDS)
def test_raw_round_trips(pg, server, enc, codec, sample):
    """Literals, identifiers, parameters (text and binary), rows (text and binary), COPY in
    and out (text, CSV, binary), errors and notices naming non-ASCII identifiers."""
    b = sample.encode(codec)
    # A table of its own per encoding (threadgres keeps temporary tables after the session).
    suffix = "_" + "".join(ch for ch in enc if ch.isalnum())
    ident = b'"' + b + suffix.encode() + b'"'

    def observe(s):
        seen = []
        u = _connect_raw(s, "UTF8")
        u.query(f'DROP TABLE IF EXISTS "{sample}{suffix}"'.encode())
        u.close()
        c = _connect_raw(s, enc)
        try:
            seen.append(_msgs(c.query(b"SHOW client_encoding")))
            seen.append(_msgs(c.query(b"SELECT pg_client_encoding(), '" + b + b"' AS " + ident)))
            seen.append(_msgs(c.query(b"CREATE TABLE " + ident + b" (k int, \"" + b + b"\" text)")))
            seen.append(_msgs(c.query(b"INSERT INTO " + ident + b" VALUES (1, '" + b + b"')")))
            seen.append(_msgs(c.query(b"SELECT * FROM " + ident)))
            # Extended protocol: text and binary parameters and results.
            c.parse("", b"SELECT $1::text || '" + b + b"', length($1::text)")
            c.bind("", "", [b], param_formats=[0], result_formats=[0])
            c.describe("P").execute()
            c.bind("", "", [b], param_formats=[1], result_formats=[1])
            c.execute()
            seen.append(_msgs(c.sync()))
            # COPY in (text with a character split over two CopyData messages, and CSV), out.
            c.send_query(b"COPY " + ident + b" FROM STDIN")
            seen.append(_msgs(c.read_until("G")))
            line = b"2\t" + b + b"\n3\t\\N\n"
            c.copy_data(line[:4]).copy_data(line[4:]).copy_done().push()
            seen.append(_msgs(c.read_until("Z")))
            c.send_query(b"COPY " + ident + b" FROM STDIN (FORMAT csv)")
            seen.append(_msgs(c.read_until("G")))
            c.copy_data(b'4,"' + b + b'"\n').copy_done().push()
            seen.append(_msgs(c.read_until("Z")))
            for fmt in (b"text", b"csv, HEADER", b"binary"):
                q = b"COPY (SELECT * FROM " + ident + b" ORDER BY k) TO STDOUT (FORMAT " + fmt + b")"
                out = c.query(q)
                seen.append(_msgs(out))
            # The binary copy back in: text values in binary form are in the client's encoding.
            c.send_query(b"COPY " + ident + b" FROM STDIN (FORMAT binary)")
            seen.append(_msgs(c.read_until("G")))
            for m in out:
                if m.type == "d":
                    c.copy_data(m.fields)
            c.copy_done().push()
            seen.append(_msgs(c.read_until("Z")))
            seen.append(_msgs(c.query(b"SELECT count(*), count(DISTINCT \"" + b + b"\") FROM " + ident)))
            # Errors and notices naming the identifier; position counts characters.
            seen.append(_msgs(c.query(b"SELECT * FROM " + ident + b"x")))
            seen.append(_msgs(c.query(b"DROP TABLE IF EXISTS " + ident + b"x")))
            seen.append(_msgs(c.query(b"SELECT '" + b + b"'::int")))
            seen.append(_msgs(c.query(b"SELECT convert_to('" + b + b"', '" + enc.encode() + b"')")))
            seen.append(_msgs(c.query(b"DROP TABLE " + ident)))
        finally:
            c.close()
        return seen

    seen = differential(pg, server, observe)
    # The literal came back as it was sent.
    row = [m for m in seen[1] if m[0] == "D"][0][1]
    assert row.endswith(len(b).to_bytes(4, "big") + b), row


@pytest.mark.parametrize("enc,codec,sample", ENCODINGS, ids=IDS)
def test_raw_failures(pg, server, enc, codec, sample):
    """Characters the encoding lacks (22P05, rows before them sent), bytes that are no
    character (22021) in a query, a Bind parameter and COPY data."""
    missing = MISSING[enc]
    bad = BAD_BYTES.get(enc)
    suffix = "_" + "".join(ch for ch in enc if ch.isalnum())

    def observe(s):
        seen = []
        u = _connect_raw(s, "UTF8")
        u.query('CREATE TABLE IF NOT EXISTS enc_missing_name ("a✓" int)'.encode())
        u.close()
        c = _connect_raw(s, enc)
        try:
            if missing:
                seen.append(_msgs(c.query(b"SELECT x FROM (VALUES ('a'), (chr(" + str(ord(missing)).encode()
                                          + b")), ('b')) v(x)")))
                seen.append(_msgs(c.query(b"SELECT (chr(" + str(ord(missing)).encode() + b"))::int")))
                # A column name the encoding lacks (the table made by a UTF8 session).
                seen.append(_msgs(c.query(b"SELECT * FROM enc_missing_name")))
                seen.append(_msgs(c.query(b"COPY (SELECT 'a' UNION ALL SELECT chr("
                                          + str(ord(missing)).encode() + b")) TO STDOUT")))
                seen.append(_msgs(c.query(b"SELECT convert_to(chr(" + str(ord(missing)).encode()
                                          + b"), '" + enc.encode() + b"')")))
            if bad:
                seen.append(_msgs(c.query(b"SELECT '" + bad + b"'")))
                c.parse("", b"SELECT $1::text")
                c.bind("", "", [bad]).execute()
                seen.append(_msgs(c.sync()))
            if bad and enc != "SQL_ASCII":
                # (PostgreSQL stores SQL_ASCII COPY data unchecked, bytes that are no UTF-8 too;
                # threadgres keeps text as UTF-8 and refuses them: a known difference.)
                c.query(b"CREATE TEMP TABLE t" + suffix.encode() + b" (a text)")
                c.send_query(b"COPY t" + suffix.encode() + b" FROM STDIN")
                seen.append(_msgs(c.read_until("G")))
                c.copy_data(b"ok\n" + bad + b"\n").copy_done().push()
                seen.append(_msgs(c.read_until("Z")))
            seen.append(_msgs(c.query(b"SELECT 1")))
        finally:
            c.close()
        return seen

    differential(pg, server, observe)


@pytest.mark.parametrize("enc,codec,sample", ENCODINGS, ids=IDS)
def test_notifications(pg, server, enc, codec, sample):
    """Channel and payload in the client's encoding; a payload it cannot carry ends the
    listening session with FATAL 22P05, as PostgreSQL does."""
    b = sample.encode(codec)
    missing = MISSING[enc]

    def observe(s):
        seen = []
        c = _connect_raw(s, enc)
        try:
            seen.append(_msgs(c.query(b'LISTEN "' + b + b'"')))
            seen.append(_msgs(c.query(b'NOTIFY "' + b + b'", \'' + b + b"'")))
            seen.append(_msgs(c.query(b"SELECT pg_notify('" + b + b"', '" + b + b"2')")))
            if missing:
                c.send_query(b"SELECT pg_notify('" + b + b"', 'x' || chr(" + str(ord(missing)).encode() + b"))")
                try:
                    seen.append(_msgs(c.read_until_closed()))
                except ConnectionClosed:
                    seen.append("closed")
        finally:
            c.close()
        return seen

    differential(pg, server, observe)


def test_set_and_reset(pg, server):
    """SET client_encoding / SET NAMES take aliases and show the canonical name; RESET goes back
    to the start-up value; a transaction rolled back restores the encoding; unknown names and
    conversions are refused."""
    def observe(s):
        seen = []
        c = _connect_raw(s, "latin1")
        try:
            for q in [b"SET client_encoding TO 'win1251'", b"SHOW client_encoding",
                      "SELECT 'Привет'".encode("cp1251"),
                      b"SET NAMES 'Latin-2'", b"SHOW client_encoding",
                      b"RESET client_encoding", b"SHOW client_encoding", "SELECT 'é'".encode("latin-1"),
                      b"SET client_encoding = DEFAULT", b"SHOW client_encoding",
                      b"BEGIN", b"SET client_encoding = 'koi8r'", b"SHOW client_encoding", b"ROLLBACK",
                      b"SHOW client_encoding", "SELECT 'é'".encode("latin-1"),
                      b"SET client_encoding = 'bogus'", b"SET client_encoding = 'mule_internal'",
                      b"SET client_encoding = 'unicode'", b"SHOW client_encoding", b"SELECT 'caf\xc3\xa9'",
                      b"SET client_encoding = 'sql_ascii'", b"SELECT 'caf\xc3\xa9'", b"SELECT 'caf\xe9'"]:
                seen.append((q, _msgs(c.query(q))))
        finally:
            c.close()
        return seen

    differential(pg, server, observe)


@pytest.mark.parametrize("enc", ["bogus", "mule_internal", "Latin-1", "WINDOWS-1252", "unicode", "sjis", "big5",
                                 "EUC-TW", "shiftjis2004", "Johab"])
def test_startup_encoding_names(pg, server, enc):
    def observe(s):
        c = Conn.raw(s.host, s.port)
        try:
            msgs = c.startup(params={"client_encoding": enc})
        except ConnectionClosed:
            return "closed"
        finally:
            c.close()
        return [m for m in _msgs(msgs) if m[0] in "ES" and (m[0] == "E" or b"client_encoding" in m[1])]

    differential(pg, server, observe)


# (psycopg has no codec for EUC_TW.)
@pytest.mark.parametrize("enc,codec,sample", [e for e in ENCODINGS if e[0] not in ("SQL_ASCII", "EUC_TW")], ids=[
    e[0] for e in ENCODINGS if e[0] not in ("SQL_ASCII", "EUC_TW")])
def test_psycopg(pg, server, enc, codec, sample):
    """psycopg with client_encoding: text and binary parameters and results, errors."""
    def observe(s):
        out = []
        with psycopg.connect(s.conninfo, client_encoding=enc, autocommit=True, connect_timeout=10) as conn:
            out.append(conn.info.encoding)
            for binary in (False, True):
                cur = conn.cursor(binary=binary)
                cur.execute("SELECT %s::text || %s, length(%s)", (sample, sample, sample))
                row = cur.fetchone()
                assert row[0] == sample + sample
                out.append(row)
            cur = conn.cursor()
            table = f'"{sample}_psycopg_{"".join(ch for ch in enc if ch.isalnum())}"'
            cur.execute(f"DROP TABLE IF EXISTS {table}")
            cur.execute(f"CREATE TABLE {table} (v text)")
            with cur.copy(f"COPY {table} FROM STDIN") as cp:
                cp.write_row((sample,))
            with cur.copy(f"COPY {table} TO STDOUT") as cp:
                out.append([r for r in cp.rows()])
            cur.execute(f"DROP TABLE {table}")
            try:
                cur.execute(f'SELECT * FROM "{sample}x"')
            except psycopg.Error as e:
                out.append((e.sqlstate, str(e.diag.message_primary)))
            if MISSING[enc]:
                try:
                    cur.execute("SELECT chr(%s)", (ord(MISSING[enc]),))
                    out.append(cur.fetchall())
                except psycopg.Error as e:
                    out.append((e.sqlstate, str(e.diag.message_primary)))
        return out

    differential(pg, server, observe)


@pytest.mark.parametrize("enc,codec,sample", [e for e in ENCODINGS if e[0] in (
    "latin1", "win1252", "Windows1251", "KOI8R", "Shift_JIS", "EUC_KR", "GBK", "GB18030")],
    ids=["latin1", "win1252", "Windows1251", "KOI8R", "Shift_JIS", "EUC_KR", "GBK", "GB18030"])
def test_asyncpg(pg, server, enc, codec, sample):
    """asyncpg sends and reads text in binary format: converted as PostgreSQL's text send and
    receive functions convert it."""
    async def run(s):
        conn = await asyncpg.connect(host=s.host, port=s.port, user=s.user, database=s.database,
                                     server_settings={"client_encoding": enc}, timeout=10)
        try:
            out = [await conn.fetchval("SHOW client_encoding")]
            out.append(await conn.fetchrow("SELECT $1::text || 'x' AS a, $1::varchar AS b, $1::name AS c",
                                           sample))
            out.append(await conn.fetchval("SELECT $1::jsonb ->> 'k'", '{"k": "%s"}' % sample))
            if MISSING[enc]:
                try:
                    out.append(await conn.fetchval("SELECT chr(10003)"))
                except asyncpg.PostgresError as e:
                    out.append((e.sqlstate, str(e)))
            return [tuple(r) if hasattr(r, "items") else r for r in out]
        finally:
            await conn.close()

    ref = differential(pg, server, lambda s: arun(run(s)))
    assert ref[1][0] == sample + "x"
