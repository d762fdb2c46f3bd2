#!/usr/bin/env python3
"""Generates src/encoding/tables/*.bin: the mappings between UTF-8 and the client encodings
that encoding_rs has no table for (BIG5, JOHAB, EUC_TW, EUC_JIS_2004, SHIFT_JIS_2004), read by
src/encoding/table.rs.

    python3 scripts/gen_encoding_tables.py            # rewrites the tables
    python3 scripts/gen_encoding_tables.py --check    # fails if they would change

Sources (public standard data, nothing of PostgreSQL's):

* Python's codecs (CJKCodecs): big5 (Unicode's BIG5.TXT), cp950, johab (KS X 1001:1998
  annex 3), euc_jis_2004 and shift_jis_2004 (JIS X 0213:2004, with its combining sequences).
* glibc's EUC-TW charmap (/usr/share/i18n/charmaps/EUC-TW.gz, Debian package `locales`):
  CNS 11643-1992 planes 1-7.

PostgreSQL 15's tables differ from these in places; every rule below was found by comparing
every byte sequence and every code point U+0080-U+2FFFF with PostgreSQL 15's own `convert_from`
/ `convert_to`, and tests/py/test_encodings_cjk.py checks the result against PostgreSQL through
the wire. The module comment of src/encoding.rs lists the differences.

File format (all numbers LEB128 varints): entries sorted by code (the bytes, big-endian, packed
in an integer). Each entry is `(code - previous code) << 2 | kind`, then the first character
as a zigzag delta from the previous entry's first character, then for kind 3 the second
character. Kinds: 0 both directions, 1 decode only (bytes to UTF-8), 2 encode only (UTF-8 to
bytes), 3 both directions, a pair of characters (JIS X 0213's combining sequences)."""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "encoding" / "tables"

BOTH, DECODE, ENCODE = 0, 1, 2


def pack(b: bytes) -> int:
    return int.from_bytes(b, "big")


def decode_py(codec: str, b: bytes) -> str | None:
    try:
        s = b.decode(codec)
    except UnicodeDecodeError:
        return None
    if not s or any(ord(c) < 0x80 for c in s) or "\ufffd" in s:
        return None
    return s


class Mapping:
    """Codes to characters with a direction, and which code a character is sent as."""

    def __init__(self) -> None:
        self.dec: dict[int, tuple[str, int]] = {}  # code -> (chars, BOTH | DECODE)
        self.enc_only: dict[str, int] = {}  # chars -> code

    def add(self, code: int, chars: str, kind: int = BOTH) -> None:
        self.dec[code] = (chars, kind)

    def from_codec(self, codec: str, codes) -> None:
        """Every code the codec decodes; where a character has several, the one the codec
        encodes it to is sent (BOTH), the others decode only."""
        for b in codes:
            s = decode_py(codec, b)
            if s is None:
                continue
            try:
                back = s.encode(codec)
            except UnicodeEncodeError:
                back = None
            self.dec[pack(b)] = (s, BOTH if back in (None, b) else DECODE)

    def finish(self) -> list[tuple[int, int, str]]:
        """Sorted entries; a character keeps one code to be sent as (the first BOTH entry in
        code order), later BOTH entries of the same character become decode only."""
        seen: set[str] = set()
        out = []
        for code in sorted(self.dec):
            chars, kind = self.dec[code]
            if kind == BOTH:
                if chars in seen:
                    kind = DECODE
                seen.add(chars)
            out.append((code, kind, chars))
        for chars, code in self.enc_only.items():
            if chars not in seen:
                out.append((code, ENCODE, chars))
        out.sort(key=lambda e: (e[0], e[1]))
        return out


def two_byte(leads, trails):
    return (bytes([l, t]) for l in leads for t in trails)


def big5() -> Mapping:
    m = Mapping()
    m.from_codec("big5", two_byte(range(0x81, 0xFF), range(0x40, 0xFF)))
    # The ETEN extensions 0xF9D6-0xF9DC, from CP950.
    for b in two_byte([0xF9], range(0xD6, 0xDD)):
        m.add(pack(b), b.decode("cp950"))
    # BIG5.TXT gives seven codes (characters with a second code, or without a Unicode
    # equivalent when it was made) U+FFFD; the first one is sent for U+FFFD.
    for i, code in enumerate([0xA15A, 0xA1C3, 0xA1C5, 0xA1FE, 0xA240, 0xA2CC, 0xA2CE]):
        m.add(code, "\ufffd", BOTH if i == 0 else DECODE)
    return m


def johab() -> Mapping:
    m = Mapping()
    m.from_codec("johab", two_byte(range(0x84, 0xFA), range(0x31, 0xFF)))
    # KS X 1001:2002's postal code mark (EUC-KR 0xA2E8), in the symbol area.
    m.add(0xD9E8, "\u327e")
    return m


# JIS X 0213 plane 2 has these rows; the codecs also decode JIS X 0212 in the others.
JISX0213_PLANE2_ROWS = {1, 3, 4, 5, 8, 12, 13, 14, 15} | set(range(78, 95))

# Where JIS X 0213:2004's mapping (as the codecs have it) and PostgreSQL's differ: row-1 and
# row-2 characters PostgreSQL maps to the other of two candidate code points (EUC codes).
JIS2004_FIXES = {0xA1BD: "\u2014", 0xA2D6: "\uff5f", 0xA2D7: "\uff60"}


def euc_to_sjis(code: int) -> int:
    """The Shift_JIS-2004 code of a two-byte EUC-JIS-2004 code (plane 1)."""
    r, c = (code >> 8) - 0xA0, (code & 0xFF) - 0xA0
    lead = (r + 0x101) // 2 if r <= 62 else (r + 0x181) // 2
    trail = c + (0x3F if c <= 63 else 0x40) if r % 2 else c + 0x9E
    return lead << 8 | trail


def euc_jis_2004() -> Mapping:
    m = Mapping()
    m.from_codec("euc_jis_2004", two_byte(range(0xA1, 0xFF), range(0xA1, 0xFF)))
    m.from_codec("euc_jis_2004", (bytes([0x8E, t]) for t in range(0xA1, 0xE0)))
    m.from_codec("euc_jis_2004", (bytes([0x8F, r + 0xA0, t]) for r in sorted(JISX0213_PLANE2_ROWS)
                                  for t in range(0xA1, 0xFF)))
    for code, c in JIS2004_FIXES.items():
        m.add(code, c)
    # Overline and yen sign in row 1 (the codecs give the fullwidth forms).
    m.add(0xA1B1, "\u203e")
    m.add(0xA1EF, "\u00a5")
    # C1 controls are sent as their byte (which EUC-JIS-2004 reads as the start of a
    # two-byte character): encode only.
    for u in range(0x80, 0xA0):
        m.enc_only[chr(u)] = u
    return m


def shift_jis_2004() -> Mapping:
    m = Mapping()
    leads = list(range(0x81, 0xA0)) + list(range(0xE0, 0xFD))
    m.from_codec("shift_jis_2004", two_byte(leads, list(range(0x40, 0x7F)) + list(range(0x80, 0xFD))))
    m.from_codec("shift_jis_2004", (bytes([b]) for b in range(0xA1, 0xE0)))
    for code, c in JIS2004_FIXES.items():
        m.add(euc_to_sjis(code), c)
    # Row 1: the fullwidth macron and yen sign (the codec gives overline and yen sign, which
    # PostgreSQL sends as the single bytes 0x7E and 0x5C, read back as ASCII), and the
    # fullwidth reverse solidus and tilde, read as ASCII (and never sent: ASCII is itself).
    m.add(0x8150, "\uffe3")
    m.add(0x818F, "\uffe5")
    m.add(0x815F, "\\", DECODE)
    m.add(0x81B0, "~", DECODE)
    m.enc_only["\u00a5"] = 0x5C
    m.enc_only["\u203e"] = 0x7E
    return m


# CNS 11643-1986 plane 14 (PostgreSQL sends characters with these codes, 0x8EAExxxx, and
# reads none of them back: its EUC_TW reads planes 1-7 only). Plane 14's characters are, at
# the same positions, those of CNS 11643-1992 plane 3 that are in Unicode 1.1's CJK block
# (U+4E00-U+9FA5), but for three that plane 14 lacks, and for these 56 positions (row 66 on)
# whose characters the 1992 edition moved to plane 4.
CNS_PLANE14_NOT = {"\u8ed0", "\u60e8", "\u7c55"}
CNS_PLANE14_MOVED = {
    0xE2C9: 0x5727, 0xE2CA: 0x5C13, 0xE2D1: 0x5FC8, 0xE2D7: 0x6765, 0xE2DA: 0x52BD,
    0xE2DC: 0x5B66, 0xE2DE: 0x65F9, 0xE2DF: 0x6788, 0xE2E0: 0x6CE6, 0xE2E1: 0x6CCB,
    0xE2E3: 0x4FBD, 0xE2E4: 0x5F8D, 0xE2E6: 0x6018, 0xE2E7: 0x6048, 0xE2E9: 0x6B29,
    0xE2EA: 0x70A6, 0xE2EC: 0x7706, 0xE2F0: 0x5A10, 0xE2F1: 0x5CFC, 0xE2F2: 0x5CFE,
    0xE2F9: 0x70C9, 0xE3A3: 0x9579, 0xE3A5: 0x96BA, 0xE3AD: 0x7B29, 0xE3AE: 0x8128,
    0xE3B0: 0x8A2E, 0xE3B4: 0x9AD9, 0xE3B6: 0x582B, 0xE3B7: 0x5845, 0xE3B9: 0x63FA,
    0xE3BD: 0x6E86, 0xE3C3: 0x5867, 0xE3C5: 0x5BDD, 0xE3C6: 0x656E, 0xE3CA: 0x8C87,
    0xE3CC: 0x50D2, 0xE3CD: 0x50DF, 0xE3D2: 0x69BA, 0xE3D4: 0x6B9D, 0xE3D6: 0x8059,
    0xE3E3: 0x6F8A, 0xE3E6: 0x7BC3, 0xE3E7: 0x7BC2, 0xE3EC: 0x90F6, 0xE3EE: 0x9823,
    0xE3F4: 0x71CD, 0xE3F5: 0x7499, 0xE3FB: 0x9842, 0xE4A2: 0x7F84, 0xE4A8: 0x8D0E,
    0xE4AA: 0x9861, 0xE4AD: 0x8B73, 0xE4AF: 0x9C27, 0xE4B1: 0x9458, 0xE4B2: 0x77D6,
    0xE4B3: 0x9B2D,
}
# Plane 1 codes PostgreSQL does not map (characters added to the plane after its table).
CNS_PLANE1_NOT = {0xA7A8, 0xA7AF, 0xA7B4}

EUC_TW_CHARMAP = Path("/usr/share/i18n/charmaps/EUC-TW.gz")


def euc_tw() -> Mapping:
    charmap: dict[bytes, str] = {}
    for line in gzip.open(EUC_TW_CHARMAP, "rt", encoding="ascii", errors="replace"):
        g = re.match(r"<U([0-9A-F]+)>\s+((?:/x[0-9a-f]{2})+)", line)
        if not g:
            continue
        b = bytes(int(x, 16) for x in g.group(2).split("/x")[1:])
        if b[0] >= 0x80:
            charmap.setdefault(b, chr(int(g.group(1), 16)))
    m = Mapping()
    for b, c in charmap.items():
        if len(b) == 2 and pack(b) not in CNS_PLANE1_NOT:
            m.add(pack(b), c)
            # Plane 1 also in its four-byte form, read only.
            m.add(0x8EA10000 | pack(b), c, DECODE)
        elif len(b) == 4 and b[1] == 0xA2:
            m.add(pack(b), c)
    for b, c in charmap.items():
        if len(b) == 4 and b[1] == 0xA3 and "\u4e00" <= c <= "\u9fa5" and c not in CNS_PLANE14_NOT:
            m.enc_only.setdefault(c, 0x8EAE0000 | pack(b[2:]))
    for code, u in CNS_PLANE14_MOVED.items():
        m.enc_only[chr(u)] = 0x8EAE0000 | code
    return m


def varint(n: int, out: bytearray) -> None:
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def serialize(entries: list[tuple[int, int, str]]) -> bytes:
    out = bytearray()
    prev_code = prev_char = 0
    for code, kind, chars in entries:
        if len(chars) == 2:
            assert kind == BOTH, (hex(code), chars)
            kind = 3
        assert len(chars) in (1, 2) and code >= prev_code
        varint((code - prev_code) << 2 | kind, out)
        d = ord(chars[0]) - prev_char
        varint(d * 2 if d >= 0 else -d * 2 - 1, out)
        if kind == 3:
            varint(ord(chars[1]), out)
        prev_code, prev_char = code, ord(chars[0])
    return bytes(out)


TABLES = {
    "big5": big5,
    "johab": johab,
    "euc_tw": euc_tw,
    "euc_jis_2004": euc_jis_2004,
    "shift_jis_2004": shift_jis_2004,
}


def main() -> int:
    check = "--check" in sys.argv[1:]
    OUT.mkdir(parents=True, exist_ok=True)
    stale = []
    for name, build in TABLES.items():
        data = serialize(build().finish())
        path = OUT / f"{name}.bin"
        if check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(name)
        else:
            path.write_bytes(data)
            print(f"{path}: {len(data)} bytes")
    if stale:
        print("stale tables:", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
