"""The client encodings with compiled-in tables (BIG5, JOHAB, EUC_TW, EUC_JIS_2004,
SHIFT_JIS_2004: src/encoding/table.rs), and EUC_JP (for its IBM extension codes), compared with
PostgreSQL 15 through the wire, whole:

* client to server (and for the other multibyte encodings too): every byte sequence of one to
  four bytes that a character of the encoding could start with (every lead byte with every second byte; the three- and four-byte forms of
  the EUC encodings), each sent as a literal in a query of its own: the character it reads as
  (returned as UTF-8 bytes), or the error (22021 `invalid byte sequence`, 22P05 `has no
  equivalent`) with its text;
* server to client: every code point U+0080-U+2FFFF (surrogates excepted) sent as a row: the
  bytes the client receives, or the error; and JIS X 0213's combining sequences, alone and
  next to other characters.

Queries are pipelined (thousands in one write) so that the ~1.5 million queries per server
take about a minute. test_encodings.py has these encodings among the others for literals,
parameters, COPY, notifications and clients."""

from __future__ import annotations

import pytest

from pgwire import Conn, _cstr, frame

# EUC_JP too, for its three-byte IBM extension codes (0x8FF3F3-0x8FF4FE).
ENCODINGS = ["BIG5", "JOHAB", "EUC_TW", "EUC_JIS_2004", "SHIFT_JIS_2004", "EUC_JP"]


def _pipeline(s, enc: str, queries: list[bytes], chunk: int = 2000) -> list:
    """Each query's answer: ('D', value) for a one-value row, ('E', sqlstate, message), or the
    message types otherwise. Chunks keep both sides' socket buffers from filling."""
    c = Conn.connect(s.host, s.port, user=s.user, database=s.database,
                     params={"client_encoding": enc})
    out = []
    try:
        for i in range(0, len(queries), chunk):
            part = queries[i:i + chunk]
            c.push(b"".join(frame(b"Q", _cstr(q)) for q in part))
            for _ in part:
                msgs = c.read_until("Z", timeout=120)
                ans = [("D", m.raw[6:]) if m.type == "D" else ("E", m.fields.get("C"), m.fields.get("M"))
                       for m in msgs if m.type in "DE"]
                out.append(tuple(ans) if len(ans) != 1 else ans[0])
    finally:
        c.close()
    return out


def _compare(what: str, keys: list, ref: list, got: list) -> None:
    """Fails listing the first differences (the lists are long)."""
    assert len(ref) == len(got) == len(keys)
    bad = [(k, r, g) for k, r, g in zip(keys, ref, got) if r != g]
    if bad:
        lines = "\n".join(f"  {k!r}: pg15 {r!r} threadgres {g!r}" for k, r, g in bad[:25])
        pytest.fail(f"{what}: {len(bad)} of {len(keys)} differ, first:\n{lines}", pytrace=False)


def _decode_candidates(enc: str) -> list[bytes]:
    seqs = []
    for lead in range(0x80, 0x100):
        seqs.append(bytes([lead]))
        seqs.append(bytes([lead]) + b"x")
        seqs += [bytes([lead, t]) for t in range(0x01, 0x100)]
    euc3 = enc in ("EUC_JIS_2004", "JOHAB", "EUC_TW", "EUC_JP")
    if euc3:
        seqs += [bytes([0x8F, b, c]) for b in range(0xA1, 0xFF) for c in range(0xA1, 0xFF)]
        seqs += [bytes([0x8F, b, c]) for b in (0x41, 0xA1, 0xFE) for c in (0x41, 0x80, 0xA0, 0xFF)]
    if enc == "EUC_TW":
        # Planes 1, 2 (mapped), 3 (empty in PostgreSQL), 7 (the last it reads), 8 and 14
        # (beyond it), in full; the malformed forms around them.
        for plane in (0xA1, 0xA2, 0xA3, 0xA7, 0xA8, 0xAE):
            seqs += [bytes([0x8E, plane, b, c]) for b in range(0xA1, 0xFF) for c in range(0xA1, 0xFF)]
        seqs += [bytes([0x8E, p, b, c]) for p in (0x41, 0xA0, 0xA1, 0xA2) for b in (0x41, 0xA1, 0xFF)
                 for c in (0x41, 0xA1, 0xFF)]
        seqs += [bytes([0x8E, 0xA1, 0xA1]), bytes([0x8E, 0xA2])]
    return [s for s in seqs if b"\0" not in s]


def _code_points() -> list[int]:
    return [u for u in range(0x80, 0x30000) if not 0xD800 <= u <= 0xDFFF]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("enc", ENCODINGS + ["SJIS", "EUC_KR", "UHC", "EUC_CN", "GBK", "GB18030"])
def test_every_byte_sequence(pg, tg, enc):
    """Client to server: each sequence as a literal; the UTF-8 it reads as, or the error."""
    seqs = _decode_candidates(enc)
    queries = [b"SELECT convert_to('" + q + b"', 'UTF8')" for q in seqs]
    ref = _pipeline(pg, enc, queries)
    got = _pipeline(tg, enc, queries)
    _compare(f"{enc} client to server", [q.hex() for q in seqs], ref, got)
    mapped = sum(1 for r in ref if r[0] == "D")
    assert mapped > 5000, mapped
    # Several characters in one literal: the first bad one is reported.
    mixed = [b"\xa4\xa4", b"\xa4\xa4\x81", b"\x81\x40\xa4", b"\xa4\xa4\x8d\x20", b"\x88\x61\xa4\xa4",
             b"\x8e\xa2\xa1\xa1\xa4", b"\x8f\xa1\xa1\xa4\xf7", b"\x82\xf5\x82"]
    queries = [b"SELECT convert_to('" + q + b"', 'UTF8')" for q in mixed]
    _compare(f"{enc} mixed", [q.hex() for q in mixed], _pipeline(pg, enc, queries), _pipeline(tg, enc, queries))


@pytest.mark.timeout(600)
@pytest.mark.parametrize("enc", ENCODINGS)
def test_every_code_point(pg, tg, enc):
    """Server to client: each code point as a row; the bytes the client gets, or the error."""
    cps = _code_points()
    queries = [b"SELECT chr(%d)" % u for u in cps]
    ref = _pipeline(pg, enc, queries)
    got = _pipeline(tg, enc, queries)
    _compare(f"{enc} server to client", [f"U+{u:04X}" for u in cps], ref, got)
    sent = sum(1 for r in ref if r[0] == "D")
    assert sent > 10000, sent


@pytest.mark.parametrize("enc", ["EUC_JIS_2004", "SHIFT_JIS_2004"])
def test_combining_sequences(pg, tg, enc):
    """JIS X 0213's 25 characters made of two code points: sent as one code when the two are
    adjacent, each alone otherwise; read back as the two."""
    # The pairs as PostgreSQL reads them from its codes (a row of two characters).
    if enc == "EUC_JIS_2004":
        codes = [bytes([a, b]) for a in range(0xA4, 0xAC) for b in range(0xA1, 0xFF)]
    else:
        codes = [bytes([a, b]) for a in (0x82, 0x83, 0x84, 0x86) for b in range(0x40, 0xFD) if b != 0x7F]
    queries = [b"SELECT convert_to('" + c + b"', 'UTF8')::text" for c in codes]
    ref = _pipeline(pg, enc, queries)
    pairs = []
    for r in ref:
        if r[0] == "D":
            s = bytes.fromhex(r[1].decode()[2:]).decode()
            if len(s) == 2:
                pairs.append(s)
    assert len(pairs) == 25, pairs
    texts = []
    for p in pairs:
        a, b = p
        texts += [a + b, a + b + b, a + a + b, b + a, a + "x", "x" + b, a + b + "x", "\u3042" + a + b]
    queries = [b"SELECT " + b" || ".join(b"chr(%d)" % ord(ch) for ch in t) for t in texts]
    _compare(f"{enc} combining", [t for t in texts], _pipeline(pg, enc, queries), _pipeline(tg, enc, queries))
    # And read back, as literals in the client's encoding.
    back = [r[1] for r in _pipeline(pg, enc, queries) if r[0] == "D"]
    lits = [b"SELECT convert_to('" + v + b"', 'UTF8')" for v in back]
    _compare(f"{enc} combining read back", [v.hex() for v in back], _pipeline(pg, enc, lits),
             _pipeline(tg, enc, lits))


def test_direct_conversions_refused(tg):
    """convert() between BIG5 and EUC_TW, EUC_JIS_2004 and SHIFT_JIS_2004: PostgreSQL converts
    these with tables of its own; threadgres refuses them (a known difference)."""
    with Conn.connect(tg.host, tg.port, user=tg.user, database=tg.database) as c:
        for a, b in (("BIG5", "EUC_TW"), ("EUC_TW", "BIG5"), ("EUC_JIS_2004", "SHIFT_JIS_2004")):
            msgs = c.query(f"SELECT convert('\\xa4a4'::bytea, '{a}', '{b}')")
            err = [m for m in msgs if m.type == "E"][0]
            assert err.fields["C"] == "0A000", err.fields


def test_tables_current():
    """src/encoding/tables/*.bin are what scripts/gen_encoding_tables.py makes from its sources
    (skipped where glibc's charmaps, Debian package `locales`, are not installed)."""
    import subprocess
    import sys
    from pathlib import Path

    if not Path("/usr/share/i18n/charmaps/EUC-TW.gz").exists():
        pytest.skip("glibc's EUC-TW charmap is not installed (package locales)")
    script = Path(__file__).resolve().parents[2] / "scripts" / "gen_encoding_tables.py"
    r = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
