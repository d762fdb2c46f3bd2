//! Client encodings: PostgreSQL's names for them, and the conversion between a client's
//! encoding and UTF-8 (the server encoding) that happens at the wire boundary.
//!
//! The server keeps every string in UTF-8. A session whose `client_encoding` is UTF8 (the
//! default) or SQL_ASCII holds no [`Codec`] (`None`), and nothing here runs for it: the hooks in
//! the session are one branch on that `Option`. Otherwise text is converted where it crosses the
//! wire, in both directions, as PostgreSQL's `pg_client_to_server` / `pg_server_to_client` do.
//!
//! **Where the mappings come from.** The tables are derived at first use from the `encoding_rs`
//! crate (WHATWG's encodings), one [`Codec`] per encoding, built once per process and kept for
//! its life (a few hundred KiB per multibyte encoding in use, at most one per encoding). WHATWG's
//! encodings differ from PostgreSQL's tables in places; each difference was found by comparing
//! every byte sequence and every mapped character of both, with PostgreSQL 15's own `convert_to`
//! / `convert_from`, and is corrected here by a rule or a short list (see [`fixups`]):
//!
//! * LATIN1 is ISO-8859-1 (WHATWG's "iso-8859-1" label means windows-1252): byte = code point.
//! * LATIN5 (ISO-8859-9) is windows-1254 with 0x80-0x9F as C1 controls.
//! * The windows code pages (WIN874, WIN125x): the bytes Microsoft leaves undefined, which
//!   WHATWG maps to the C1 control of the same value, have no equivalent in PostgreSQL; WIN1255
//!   0xCA too.
//! * KOI8U is RFC 2319's KOI8-U (0xAE, 0xBE are box drawings), not WHATWG's KOI8-RU.
//! * SJIS: the user-defined area (0xF0-0xF9, private use) has no equivalent; thirteen characters
//!   with two codes (NEC and IBM rows) are sent as PostgreSQL sends them.
//! * EUC_KR / UHC: PostgreSQL also maps 0xA2E8 (U+327E); UHC's user-defined rows 0xC9, 0xFE.
//! * EUC_CN is GB2312 where WHATWG has only GBK; GBK is CP936 where WHATWG decodes GB18030's
//!   two-byte part: the GB18030 additions are excluded.
//! * EUC_JP: the rows 0xF9-0xFC (NEC-selected IBM extensions) have no equivalent in
//!   PostgreSQL; its three-byte IBM extension codes 0x8FF3F3-0x8FF4FE (106 codes, whose
//!   characters WHATWG puts in those rows) are refused in both directions (22P05), where
//!   PostgreSQL converts them: a known difference; 0x8FA2B7 and 0x8FA2C3 follow PostgreSQL.
//! * GB18030 follows GB18030-2005 in PostgreSQL and -2022 in WHATWG: 20 characters differ.
//!
//! BIG5 (WHATWG's is Big5-HKSCS, hundreds of codes differ), JOHAB, EUC_TW, EUC_JIS_2004,
//! SHIFT_JIS_2004 (none in encoding_rs) and MULE_INTERNAL (PostgreSQL refuses it too) are refused
//! as client encodings with PostgreSQL's error for a conversion it does not have.
//!
//! Errors are PostgreSQL's: bytes that are not a character of the client's encoding are 22021
//! `invalid byte sequence for encoding "X": 0x..`, characters without an equivalent 22P05
//! `character with byte sequence 0x.. in encoding "X" has no equivalent in encoding "Y"`.

use std::borrow::Cow;
use std::sync::OnceLock;

use bytes::BufMut;
use rustc_hash::FxHashMap;

use crate::error::{code, PgError};

/// PostgreSQL's encoding names by number (`pg_enc2name_tbl`; the numbers are `pg_enc`'s).
pub const NAMES: [&str; 42] = [
    "SQL_ASCII",
    "EUC_JP",
    "EUC_CN",
    "EUC_KR",
    "EUC_TW",
    "EUC_JIS_2004",
    "UTF8",
    "MULE_INTERNAL",
    "LATIN1",
    "LATIN2",
    "LATIN3",
    "LATIN4",
    "LATIN5",
    "LATIN6",
    "LATIN7",
    "LATIN8",
    "LATIN9",
    "LATIN10",
    "WIN1256",
    "WIN1258",
    "WIN866",
    "WIN874",
    "KOI8R",
    "WIN1251",
    "WIN1252",
    "ISO_8859_5",
    "ISO_8859_6",
    "ISO_8859_7",
    "ISO_8859_8",
    "WIN1250",
    "WIN1253",
    "WIN1254",
    "WIN1255",
    "WIN1257",
    "KOI8U",
    "SJIS",
    "BIG5",
    "GBK",
    "UHC",
    "GB18030",
    "JOHAB",
    "SHIFT_JIS_2004",
];

/// An encoding, by PostgreSQL's number for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Enc(u8);

impl Enc {
    pub const SQL_ASCII: Enc = Enc(0);
    pub const EUC_JP: Enc = Enc(1);
    pub const EUC_CN: Enc = Enc(2);
    pub const EUC_KR: Enc = Enc(3);
    pub const UTF8: Enc = Enc(6);
    pub const MULE_INTERNAL: Enc = Enc(7);
    pub const LATIN1: Enc = Enc(8);
    pub const LATIN5: Enc = Enc(12);
    pub const KOI8U: Enc = Enc(34);
    pub const WIN1255: Enc = Enc(32);
    pub const SJIS: Enc = Enc(35);
    pub const BIG5: Enc = Enc(36);
    pub const GBK: Enc = Enc(37);
    pub const UHC: Enc = Enc(38);
    pub const GB18030: Enc = Enc(39);
    pub const JOHAB: Enc = Enc(40);

    /// PostgreSQL's canonical name (what SHOW client_encoding prints).
    pub fn name(self) -> &'static str {
        NAMES[self.0 as usize]
    }

    /// PostgreSQL's number (`pg_char_to_encoding`, `pg_encoding_to_char`).
    pub fn id(self) -> i32 {
        self.0 as i32
    }

    pub fn from_id(id: i64) -> Option<Enc> {
        (0..NAMES.len() as i64)
            .contains(&id)
            .then_some(Enc(id as u8))
    }

    /// PostgreSQL's `pg_char_to_encoding`: case and every character but letters and digits are
    /// ignored (`Latin-1`, `iso_8859_1`, `ISO88591` are one name), aliases included.
    pub fn lookup(name: &str) -> Option<Enc> {
        if name.is_empty() || name.len() >= 64 {
            return None;
        }
        let key: String = name
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        ALIASES
            .binary_search_by(|(n, _)| n.cmp(&key.as_str()))
            .ok()
            .map(|i| Enc(ALIASES[i].1))
    }

    /// The highest byte length of one character (PostgreSQL's `pg_encoding_max_length`), as
    /// `convert_to` / `convert_from` need no more.
    fn is_single_byte(self) -> bool {
        (8..=34).contains(&self.0) || self == Enc::SQL_ASCII
    }
}

/// PostgreSQL's `pg_encname_tbl` (encnames.c), sorted by name: every spelling it accepts.
const ALIASES: &[(&str, u8)] = &[
    ("abc", 19),
    ("alt", 20),
    ("big5", 36),
    ("euccn", 2),
    ("eucjis2004", 5),
    ("eucjp", 1),
    ("euckr", 3),
    ("euctw", 4),
    ("gb18030", 39),
    ("gbk", 37),
    ("iso88591", 8),
    ("iso885910", 13),
    ("iso885913", 14),
    ("iso885914", 15),
    ("iso885915", 16),
    ("iso885916", 17),
    ("iso88592", 9),
    ("iso88593", 10),
    ("iso88594", 11),
    ("iso88595", 25),
    ("iso88596", 26),
    ("iso88597", 27),
    ("iso88598", 28),
    ("iso88599", 12),
    ("johab", 40),
    ("koi8", 22),
    ("koi8r", 22),
    ("koi8u", 34),
    ("latin1", 8),
    ("latin10", 17),
    ("latin2", 9),
    ("latin3", 10),
    ("latin4", 11),
    ("latin5", 12),
    ("latin6", 13),
    ("latin7", 14),
    ("latin8", 15),
    ("latin9", 16),
    ("mskanji", 35),
    ("muleinternal", 7),
    ("shiftjis", 35),
    ("shiftjis2004", 41),
    ("sjis", 35),
    ("sqlascii", 0),
    ("tcvn", 19),
    ("tcvn5712", 19),
    ("uhc", 38),
    ("unicode", 6),
    ("utf8", 6),
    ("vscii", 19),
    ("win", 23),
    ("win1250", 29),
    ("win1251", 23),
    ("win1252", 24),
    ("win1253", 30),
    ("win1254", 31),
    ("win1255", 32),
    ("win1256", 18),
    ("win1257", 33),
    ("win1258", 19),
    ("win866", 20),
    ("win874", 21),
    ("win932", 35),
    ("win936", 37),
    ("win949", 38),
    ("win950", 36),
    ("windows1250", 29),
    ("windows1251", 23),
    ("windows1252", 24),
    ("windows1253", 30),
    ("windows1254", 31),
    ("windows1255", 32),
    ("windows1256", 18),
    ("windows1257", 33),
    ("windows1258", 19),
    ("windows866", 20),
    ("windows874", 21),
    ("windows932", 35),
    ("windows936", 37),
    ("windows949", 38),
    ("windows950", 36),
];

/// The encoding_rs encoding a PostgreSQL encoding's tables are derived from; `None` where
/// there is none, or none close enough (see the module comment).
fn source(enc: Enc) -> Option<&'static encoding_rs::Encoding> {
    use encoding_rs as e;
    Some(match enc.0 {
        1 => e::EUC_JP,
        2 | 37 => e::GBK,
        3 | 38 => e::EUC_KR,
        9 => e::ISO_8859_2,
        10 => e::ISO_8859_3,
        11 => e::ISO_8859_4,
        // ISO-8859-9: windows-1254 and C1 controls (fixups::single).
        12 => e::WINDOWS_1254,
        13 => e::ISO_8859_10,
        14 => e::ISO_8859_13,
        15 => e::ISO_8859_14,
        16 => e::ISO_8859_15,
        17 => e::ISO_8859_16,
        18 => e::WINDOWS_1256,
        19 => e::WINDOWS_1258,
        20 => e::IBM866,
        21 => e::WINDOWS_874,
        22 => e::KOI8_R,
        23 => e::WINDOWS_1251,
        24 => e::WINDOWS_1252,
        25 => e::ISO_8859_5,
        26 => e::ISO_8859_6,
        27 => e::ISO_8859_7,
        28 => e::ISO_8859_8,
        29 => e::WINDOWS_1250,
        30 => e::WINDOWS_1253,
        31 => e::WINDOWS_1254,
        32 => e::WINDOWS_1255,
        33 => e::WINDOWS_1257,
        34 => e::KOI8_U,
        35 => e::SHIFT_JIS,
        39 => e::GB18030,
        _ => return None,
    })
}

/// The converter of one client encoding (not UTF8 or SQL_ASCII, which need none).
pub struct Codec {
    enc: Enc,
    kind: Kind,
}

impl std::fmt::Debug for Codec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Codec({})", self.enc.name())
    }
}

enum Kind {
    /// ISO-8859-1: byte = code point.
    Latin1,
    /// Bytes 0x80-0xFF: the character (`'\0'`: none), and back.
    Single {
        to: Box<[char; 128]>,
        from: FxHashMap<char, u8>,
    },
    /// Byte sequences packed big-endian into a `u32` (the first byte is ≥ 0x80, so the
    /// length is implied), to their character and back.
    Multi {
        to: FxHashMap<u32, char>,
        from: FxHashMap<char, u32>,
    },
    /// All of Unicode: encoding_rs per character, with GB18030-2005's differences.
    Gb18030,
}

/// The client encoding of a session: `None` for UTF8 and SQL_ASCII (no conversion).
pub type Client = Option<&'static Codec>;

/// The codec for `enc`: `Ok(None)` where no conversion is needed, an error (PostgreSQL's for a
/// conversion it lacks) where threadgres has none.
pub fn codec(enc: Enc) -> Result<Client, PgError> {
    if enc == Enc::UTF8 || enc == Enc::SQL_ASCII {
        return Ok(None);
    }
    if enc != Enc::LATIN1 && (source(enc).is_none() || enc == Enc::BIG5) {
        return Err(PgError::new(
            code::FEATURE_NOT_SUPPORTED,
            format!(
                "conversion between {} and UTF8 is not supported",
                enc.name()
            ),
        ));
    }
    static CODECS: [OnceLock<Codec>; 42] = [const { OnceLock::new() }; 42];
    Ok(Some(
        CODECS[enc.0 as usize].get_or_init(|| Codec::build(enc)),
    ))
}

/// `0xe2 0x82 0xac`: bytes as PostgreSQL's conversion errors list them.
fn hex_bytes(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 5);
    for (i, x) in b.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("0x{x:02x}"));
    }
    s
}

/// PostgreSQL's `pg_encoding_mblen`: the length a character starting with `s[0]` claims.
fn mblen(enc: Enc, s: &[u8]) -> usize {
    let b = s[0];
    if b < 0x80 {
        return 1;
    }
    match enc.0 {
        6 => match b {
            _ if b & 0xe0 == 0xc0 => 2,
            _ if b & 0xf0 == 0xe0 => 3,
            _ if b & 0xf8 == 0xf0 => 4,
            _ => 1,
        },
        // EUC_JP, EUC_KR, EUC_JIS_2004: SS3 starts three bytes.
        1 | 3 | 5 if b == 0x8f => 3,
        4 if b == 0x8e => 4,
        35 | 41 if (0xa1..=0xdf).contains(&b) => 1,
        39 => match s.get(1) {
            Some(0x30..=0x39) => 4,
            _ => 2,
        },
        _ if enc.is_single_byte() => 1,
        _ => 2,
    }
}

/// ERROR 22021 for bytes at the start of `rest` that are not a character of `enc`, listing
/// the bytes the character claims (as far as there are any), as `report_invalid_encoding`.
pub fn invalid(enc: Enc, rest: &[u8]) -> PgError {
    let l = mblen(enc, rest).min(rest.len());
    PgError::new(
        code::CHARACTER_NOT_IN_REPERTOIRE,
        format!(
            "invalid byte sequence for encoding \"{}\": {}",
            enc.name(),
            hex_bytes(&rest[..l])
        ),
    )
}

/// ERROR 22P05 for a character (`bytes` in `from`) with no equivalent in `to`.
pub fn untranslatable(from: Enc, to: Enc, bytes: &[u8]) -> PgError {
    PgError::new(
        code::UNTRANSLATABLE_CHARACTER,
        format!(
            "character with byte sequence {} in encoding \"{}\" has no equivalent in encoding \"{}\"",
            hex_bytes(bytes),
            from.name(),
            to.name()
        ),
    )
}

/// ERROR 22021 for a string that is not UTF-8 (`valid_up_to` from the failed check).
pub fn invalid_utf8(s: &[u8], valid_up_to: usize) -> PgError {
    invalid(Enc::UTF8, &s[valid_up_to..])
}

/// Checks bytes a client sent in UTF8 (or SQL_ASCII, checked against the server's UTF8 as
/// PostgreSQL does), with PostgreSQL's error. NUL is not a character either.
pub fn utf8_in(s: &[u8]) -> Result<&str, PgError> {
    match std::str::from_utf8(s) {
        Ok(t) => match memchr::memchr(0, s) {
            None => Ok(t),
            Some(at) => Err(invalid(Enc::UTF8, &s[at..])),
        },
        Err(e) => Err(invalid_utf8(s, e.valid_up_to())),
    }
}

/// PostgreSQL's `mbverify` for the multibyte encodings: the length of the valid character at
/// the start of `s` (`s[0]` ≥ 0x80), or `None`.
fn verify(enc: Enc, s: &[u8]) -> Option<usize> {
    let euc = |c: u8| (0xa1..=0xfe).contains(&c);
    let c1 = s[0];
    let at = |i: usize| s.get(i).copied().filter(|&c| c != 0);
    match enc {
        Enc::EUC_JP => match c1 {
            0x8e => at(1).filter(|c| (0xa1..=0xdf).contains(c)).map(|_| 2),
            0x8f => (at(1).is_some_and(euc) && at(2).is_some_and(euc)).then_some(3),
            _ => (euc(c1) && at(1).is_some_and(euc)).then_some(2),
        },
        Enc::EUC_CN | Enc::EUC_KR => (euc(c1) && at(1).is_some_and(euc)).then_some(2),
        Enc::SJIS => {
            if (0xa1..=0xdf).contains(&c1) {
                return Some(1);
            }
            let head = (0x81..=0x9f).contains(&c1) || (0xe0..=0xfc).contains(&c1);
            let tail = |c: u8| (0x40..=0x7e).contains(&c) || (0x80..=0xfc).contains(&c);
            (head && at(1).is_some_and(tail)).then_some(2)
        }
        Enc::GB18030 => {
            let b = |i: usize| s.get(i).copied().unwrap_or(0);
            if s.len() >= 4 && (0x30..=0x39).contains(&b(1)) {
                let ok = (0x81..=0xfe).contains(&c1)
                    && (0x81..=0xfe).contains(&b(2))
                    && (0x30..=0x39).contains(&b(3));
                ok.then_some(4)
            } else if s.len() >= 2 && (0x81..=0xfe).contains(&c1) {
                let t = b(1);
                ((0x40..=0x7e).contains(&t) || (0x80..=0xfe).contains(&t)).then_some(2)
            } else {
                None
            }
        }
        // GBK, UHC: two bytes, the second not NUL.
        _ => at(1).map(|_| 2),
    }
}

fn pack(b: &[u8]) -> u32 {
    b.iter().fold(0, |k, &x| (k << 8) | x as u32)
}

fn put_packed<B: BufMut>(out: &mut B, k: u32) {
    let n = 4 - (k.leading_zeros() / 8) as usize;
    out.put_slice(&k.to_be_bytes()[4 - n..]);
}

/// The one character encoding_rs decodes `b` to, if exactly one.
fn decode_one(e: &'static encoding_rs::Encoding, b: &[u8]) -> Option<char> {
    let s = e.decode_without_bom_handling_and_without_replacement(b)?;
    let mut it = s.chars();
    match (it.next(), it.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

/// The bytes encoding_rs encodes `c` to, packed, if it can.
fn encode_one(e: &'static encoding_rs::Encoding, c: char) -> Option<u32> {
    let mut encoder = e.new_encoder();
    let mut buf = [0u8; 16];
    let mut tmp = [0u8; 4];
    let (res, _, written) =
        encoder.encode_from_utf8_without_replacement(c.encode_utf8(&mut tmp), &mut buf, true);
    match res {
        encoding_rs::EncoderResult::InputEmpty if (1..=4).contains(&written) => {
            Some(pack(&buf[..written]))
        }
        _ => None,
    }
}

/// Where PostgreSQL's tables differ from those derived from encoding_rs (found by comparing
/// both over every byte sequence and mapped character; see the module comment).
mod fixups {
    use super::Enc;

    /// The character of byte `b` (0x80-0xFF) of a single-byte encoding, from encoding_rs's
    /// `c`, as PostgreSQL maps it (`None`: no equivalent).
    pub fn single(enc: Enc, b: u8, c: Option<char>) -> Option<char> {
        let windows = matches!(enc.0, 18 | 19 | 21 | 23 | 24 | 29..=33);
        match (enc, b) {
            (Enc::LATIN5, 0x80..=0x9f) => Some(b as char),
            (Enc::KOI8U, 0xae) => Some('\u{255d}'),
            (Enc::KOI8U, 0xbe) => Some('\u{256c}'),
            (Enc::WIN1255, 0xca) => None,
            _ if windows && b < 0xa0 && c == Some(b as char) => None,
            _ => c,
        }
    }

    fn within(k: u32, ranges: &[(u32, u32)]) -> bool {
        ranges.iter().any(|&(a, b)| (a..=b).contains(&k))
    }

    /// Byte sequences encoding_rs maps that PostgreSQL's tables do not.
    pub fn excluded(enc: Enc, k: u32, c: char) -> bool {
        if ('\u{e000}'..='\u{f8ff}').contains(&c) {
            // User-defined areas (private use): PostgreSQL maps none but UHC's (`extra`).
            return true;
        }
        match enc {
            Enc::EUC_JP => within(k, &[(0xf9a1, 0xfcfe), (0x8fa2b7, 0x8fa2b7)]),
            Enc::EUC_CN => within(
                k,
                &[
                    (0xa2a1, 0xa2aa),
                    (0xa2e3, 0xa2e3),
                    (0xa6d9, 0xa6f5),
                    (0xa8bb, 0xa8c0),
                ],
            ),
            Enc::GBK => within(
                k,
                &[
                    (0xa2e3, 0xa2e3),
                    (0xa3a0, 0xa3a0),
                    (0xa6d9, 0xa6df),
                    (0xa6ec, 0xa6ed),
                    (0xa6f3, 0xa6f3),
                    (0xa8bc, 0xa8bc),
                    (0xa8bf, 0xa8bf),
                    (0xa989, 0xa995),
                    (0xfe50, 0xfefe),
                ],
            ),
            _ => false,
        }
    }

    /// Mappings PostgreSQL has in both directions that encoding_rs lacks or has otherwise.
    pub fn extra(enc: Enc) -> Vec<(u32, char)> {
        let mut v = Vec::new();
        let ch = |u: u32| char::from_u32(u).expect("valid code point");
        match enc {
            Enc::EUC_KR => v.push((0xa2e8, ch(0x327e))),
            Enc::UHC => {
                v.push((0xa2e8, ch(0x327e)));
                for (i, t) in (0xa1..=0xfe).enumerate() {
                    v.push((0xc900 | t, ch(0xe000 + i as u32)));
                    v.push((0xfe00 | t, ch(0xe05e + i as u32)));
                }
            }
            Enc::EUC_JP => v.push((0x8fa2c3, ch(0xffe4))),
            Enc::EUC_CN => {
                v.push((0xa1a4, ch(0x30fb)));
                v.push((0xa1aa, ch(0x2015)));
            }
            _ => {}
        }
        v
    }

    /// Characters PostgreSQL sends with a code it reads as another character, or as an
    /// incomplete one (GBK's euro sign: CP936's 0x80), or with one of two codes (SJIS's NEC row
    /// 13 and IBM rows): (character, code).
    pub fn one_way(enc: Enc) -> &'static [(u32, u32)] {
        match enc {
            Enc::SJIS => SJIS_OUT,
            Enc::GBK => &[(0x20ac, 0x80)],
            Enc::EUC_JP => &[(0xa6, 0x8fa2c3)],
            _ => &[],
        }
    }

    const SJIS_OUT: &[(u32, u32)] = &[
        (0x2116, 0xfa59),
        (0x2121, 0xfa5a),
        (0x2160, 0xfa4a),
        (0x2161, 0xfa4b),
        (0x2162, 0xfa4c),
        (0x2163, 0xfa4d),
        (0x2164, 0xfa4e),
        (0x2165, 0xfa4f),
        (0x2166, 0xfa50),
        (0x2167, 0xfa51),
        (0x2168, 0xfa52),
        (0x2169, 0xfa53),
        (0x3231, 0xfa58),
    ];

    /// GB18030-2005 (PostgreSQL) against -2022 (encoding_rs): the two-byte code, its private
    /// use character in 2005, and the four-byte code 2005 gives the character 2022 moved to the
    /// two-byte code.
    pub const GB18030: &[(u32, u32, u32, u32)] = &[
        (0xa3a0, 0xe5e5, 0xa1a1, 0x3000),
        (0xa6d9, 0xe78d, 0x84318236, 0xfe10),
        (0xa6da, 0xe78e, 0x84318238, 0xfe12),
        (0xa6db, 0xe78f, 0x84318237, 0xfe11),
        (0xa6dc, 0xe790, 0x84318239, 0xfe13),
        (0xa6dd, 0xe791, 0x84318330, 0xfe14),
        (0xa6de, 0xe792, 0x84318331, 0xfe15),
        (0xa6df, 0xe793, 0x84318332, 0xfe16),
        (0xa6ec, 0xe794, 0x84318333, 0xfe17),
        (0xa6ed, 0xe795, 0x84318334, 0xfe18),
        (0xa6f3, 0xe796, 0x84318335, 0xfe19),
        (0xa8bc, 0xe7c7, 0x8135f437, 0x1e3f),
        (0xfe59, 0xe81e, 0x82359037, 0x9fb4),
        (0xfe61, 0xe826, 0x82359038, 0x9fb5),
        (0xfe66, 0xe82b, 0x82359039, 0x9fb6),
        (0xfe67, 0xe82c, 0x82359130, 0x9fb7),
        (0xfe6d, 0xe832, 0x82359131, 0x9fb8),
        (0xfe7e, 0xe843, 0x82359132, 0x9fb9),
        (0xfe90, 0xe854, 0x82359133, 0x9fba),
        (0xfea0, 0xe864, 0x82359134, 0x9fbb),
    ];
}

impl Codec {
    fn build(enc: Enc) -> Codec {
        if enc == Enc::LATIN1 {
            return Codec {
                enc,
                kind: Kind::Latin1,
            };
        }
        let src = source(enc).expect("codec() checked the source");
        if enc == Enc::GB18030 {
            return Codec {
                enc,
                kind: Kind::Gb18030,
            };
        }
        if enc.is_single_byte() {
            let mut to = Box::new(['\0'; 128]);
            let mut from = FxHashMap::default();
            for b in 0x80..=0xffu8 {
                if let Some(c) = fixups::single(enc, b, decode_one(src, &[b])) {
                    to[(b - 0x80) as usize] = c;
                    from.insert(c, b);
                }
            }
            return Codec {
                enc,
                kind: Kind::Single { to, from },
            };
        }
        let mut to = FxHashMap::default();
        let mut add = |seq: &[u8]| {
            if verify(enc, seq) != Some(seq.len()) {
                return;
            }
            if let Some(c) = decode_one(src, seq) {
                let k = pack(seq);
                if !c.is_ascii() && !fixups::excluded(enc, k, c) {
                    to.insert(k, c);
                }
            }
        };
        for lead in 0x81..=0xfeu8 {
            if enc == Enc::SJIS && (0xa1..=0xdf).contains(&lead) {
                add(&[lead]);
                continue;
            }
            for trail in 0x40..=0xfeu8 {
                add(&[lead, trail]);
            }
        }
        if enc == Enc::EUC_JP {
            for b2 in 0xa1..=0xfeu8 {
                for b3 in 0xa1..=0xfeu8 {
                    add(&[0x8f, b2, b3]);
                }
            }
        }
        let mut from = FxHashMap::default();
        for (&k, &c) in &to {
            // Where a character has several codes, the one encoding_rs sends, if PostgreSQL
            // reads it back as the same character.
            if let Some(e) = encode_one(src, c) {
                if to.get(&e) == Some(&c) {
                    from.insert(c, e);
                    continue;
                }
            }
            from.entry(c).or_insert(k);
        }
        for (k, c) in fixups::extra(enc) {
            to.insert(k, c);
            from.insert(c, k);
        }
        // A character whose code now means another one (after `extra`) has none.
        from.retain(|c, k| to.get(k) == Some(c));
        for &(c, k) in fixups::one_way(enc) {
            from.insert(char::from_u32(c).expect("valid code point"), k);
        }
        Codec {
            enc,
            kind: Kind::Multi { to, from },
        }
    }

    pub fn encoding(&self) -> Enc {
        self.enc
    }

    /// The character at the start of `rest` (`rest[0]` ≥ 0x80) and its length.
    fn decode_char(&self, rest: &[u8]) -> Result<(char, usize), PgError> {
        let none = |n: usize| untranslatable(self.enc, Enc::UTF8, &rest[..n]);
        match &self.kind {
            Kind::Latin1 => Ok((rest[0] as char, 1)),
            Kind::Single { to, .. } => match to[(rest[0] - 0x80) as usize] {
                '\0' => Err(none(1)),
                c => Ok((c, 1)),
            },
            Kind::Multi { to, .. } => {
                let n = verify(self.enc, rest).ok_or_else(|| invalid(self.enc, rest))?;
                to.get(&pack(&rest[..n]))
                    .map(|&c| (c, n))
                    .ok_or_else(|| none(n))
            }
            Kind::Gb18030 => {
                let n = verify(self.enc, rest).ok_or_else(|| invalid(self.enc, rest))?;
                let k = pack(&rest[..n]);
                let fixed = fixups::GB18030.iter().find_map(|&(two, pua, four, moved)| {
                    (k == two).then_some(pua).or((k == four).then_some(moved))
                });
                match fixed {
                    Some(c) => Ok((char::from_u32(c).expect("valid code point"), n)),
                    None => decode_one(encoding_rs::GB18030, &rest[..n])
                        .map(|c| (c, n))
                        .ok_or_else(|| none(n)),
                }
            }
        }
    }

    /// The code of a non-ASCII character, packed.
    fn encode_char(&self, c: char) -> Option<u32> {
        match &self.kind {
            Kind::Latin1 => ((c as u32) < 0x100).then_some(c as u32),
            Kind::Single { from, .. } => from.get(&c).map(|&b| b as u32),
            Kind::Multi { from, .. } => from.get(&c).copied(),
            Kind::Gb18030 => {
                let u = c as u32;
                for &(two, pua, four, moved) in fixups::GB18030 {
                    if u == pua {
                        return Some(two);
                    }
                    if u == moved {
                        return Some(four);
                    }
                }
                encode_one(encoding_rs::GB18030, c)
            }
        }
    }

    /// Client bytes to UTF-8 (`pg_client_to_server`).
    pub fn to_utf8<'a>(&self, s: &'a [u8]) -> Result<Cow<'a, str>, PgError> {
        if s.is_ascii() {
            if let Some(at) = memchr::memchr(0, s) {
                return Err(invalid(self.enc, &s[at..]));
            }
            return Ok(Cow::Borrowed(
                std::str::from_utf8(s).expect("ASCII is UTF-8"),
            ));
        }
        let mut out = String::with_capacity(s.len() + s.len() / 2);
        let mut i = 0;
        while i < s.len() {
            let b = s[i];
            if b < 0x80 {
                if b == 0 {
                    return Err(invalid(self.enc, &s[i..]));
                }
                out.push(b as char);
                i += 1;
                continue;
            }
            let (c, n) = self.decode_char(&s[i..])?;
            out.push(c);
            i += n;
        }
        Ok(Cow::Owned(out))
    }

    /// The length of the longest prefix of `s` that ends on a character boundary of the
    /// client's encoding (COPY data arrives in chunks that may split a character).
    pub fn complete_prefix(&self, s: &[u8]) -> usize {
        let mut i = 0;
        while i < s.len() {
            if s[i] < 0x80 {
                i += 1;
                continue;
            }
            // GB18030's four-byte characters show their length in their second byte: a lead
            // byte alone claims two, and so waits for the next chunk as well.
            let n = mblen(self.enc, &s[i..]);
            if i + n > s.len() {
                return i;
            }
            i += n;
        }
        i
    }

    /// UTF-8 to the client's encoding (`pg_server_to_client`), appended to `out`.
    pub fn from_utf8<B: BufMut>(&self, s: &str, out: &mut B) -> Result<(), PgError> {
        if s.is_ascii() {
            out.put_slice(s.as_bytes());
            return Ok(());
        }
        for c in s.chars() {
            if c.is_ascii() {
                out.put_u8(c as u8);
                continue;
            }
            match self.encode_char(c) {
                Some(k) => put_packed(out, k),
                None => {
                    let mut tmp = [0u8; 4];
                    return Err(untranslatable(
                        Enc::UTF8,
                        self.enc,
                        c.encode_utf8(&mut tmp).as_bytes(),
                    ));
                }
            }
        }
        Ok(())
    }

    /// As [`Codec::from_utf8`], with `?` for characters that have no equivalent, for texts that
    /// must go out whatever they hold (ParameterStatus values).
    pub fn from_utf8_lossy<B: BufMut>(&self, s: &str, out: &mut B) {
        for c in s.chars() {
            if c.is_ascii() {
                out.put_u8(c as u8);
            } else {
                match self.encode_char(c) {
                    Some(k) => put_packed(out, k),
                    None => out.put_u8(b'?'),
                }
            }
        }
    }

    /// Rewrites one framed frontend message (type byte included) whose strings are in the
    /// client's encoding into `conv`, in UTF-8, for the regular decoder. Returns false when the
    /// message needs no rewriting: only ASCII, or a type without text (COPY data is converted by
    /// the COPY code, which keeps partial characters between messages; Bind parameters by Bind,
    /// which knows their types). Malformed messages are left to the decoder too.
    pub fn frame_to_utf8(&self, frame: &[u8], conv: &mut Vec<u8>) -> Result<bool, PgError> {
        let ty = frame[0];
        let body = &frame[5..];
        // How many NUL-terminated strings lead the body, after how many fixed bytes.
        let (skip, strings) = match ty {
            b'Q' | b'f' => (0, 1),
            b'P' | b'B' => (0, 2),
            b'E' => (0, 1),
            b'D' | b'C' => (1, 1),
            _ => return Ok(false),
        };
        if body.is_ascii() || body.len() < skip {
            return Ok(false);
        }
        conv.clear();
        conv.extend_from_slice(&frame[..5]);
        conv.extend_from_slice(&body[..skip]);
        let mut rest = &body[skip..];
        for _ in 0..strings {
            let Some(end) = memchr::memchr(0, rest) else {
                return Ok(false);
            };
            let s = self.to_utf8(&rest[..end])?;
            conv.extend_from_slice(s.as_bytes());
            conv.push(0);
            rest = &rest[end + 1..];
        }
        conv.extend_from_slice(rest);
        let len = (conv.len() - 1) as i32;
        conv[1..5].copy_from_slice(&len.to_be_bytes());
        Ok(true)
    }
}

/// Checks that `bytes` are characters of `enc` as PostgreSQL's `pg_verify_mbstr` does (the
/// byte structure only; single-byte encodings reject only NUL).
fn verify_str(enc: Enc, bytes: &[u8]) -> Result<(), PgError> {
    if enc == Enc::UTF8 {
        return utf8_in(bytes).map(|_| ());
    }
    let single = enc.is_single_byte();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == 0 {
            return Err(invalid(enc, &bytes[i..]));
        }
        if b < 0x80 || single {
            i += 1;
            continue;
        }
        match verify(enc, &bytes[i..]) {
            Some(n) => i += n,
            None => return Err(invalid(enc, &bytes[i..])),
        }
    }
    Ok(())
}

/// `length(bytea, name)`: the characters of `bytes` in `enc`, checked as [`convert`] checks
/// its source (PostgreSQL's `pg_verify_mbstr_len`).
pub fn char_count(bytes: &[u8], enc: Enc) -> Result<usize, PgError> {
    verify_str(enc, bytes)?;
    if enc == Enc::UTF8 {
        return Ok(bytes.iter().filter(|&&b| (b & 0xc0) != 0x80).count());
    }
    if enc.is_single_byte() {
        return Ok(bytes.len());
    }
    let (mut i, mut n) = (0, 0);
    while i < bytes.len() {
        i += if bytes[i] < 0x80 {
            1
        } else {
            verify(enc, &bytes[i..]).unwrap_or(1)
        };
        n += 1;
    }
    Ok(n)
}

/// Pairs of encodings other than UTF8 that PostgreSQL converts between directly (its
/// conversion procedures); between others `convert` has no default conversion.
fn direct_pair(a: Enc, b: Enc) -> bool {
    let group = |e: Enc| match e.0 {
        22 | 23 | 20 | 25 => 1, // KOI8R, WIN1251, WIN866, ISO_8859_5
        1 | 35 => 2,            // EUC_JP, SJIS
        9 | 29 => 3,            // LATIN2, WIN1250
        _ => 0,
    };
    group(a) != 0 && group(a) == group(b)
}

/// `convert(bytes, src, dst)` (and `convert_to`, `convert_from`): bytes in one encoding to
/// another, through UTF-8, as PostgreSQL's `pg_convert`: the source is checked first (22021),
/// a character without equivalent is 22P05, a pair without conversion 42883.
pub fn convert(bytes: &[u8], src: Enc, dst: Enc) -> Result<Vec<u8>, PgError> {
    verify_str(src, bytes)?;
    if src == dst || dst == Enc::SQL_ASCII {
        return Ok(bytes.to_vec());
    }
    if src == Enc::SQL_ASCII {
        verify_str(dst, bytes)?;
        return Ok(bytes.to_vec());
    }
    if src != Enc::UTF8 && dst != Enc::UTF8 && !direct_pair(src, dst) {
        return Err(PgError::new(
            code::UNDEFINED_FUNCTION,
            format!(
                "default conversion function for encoding \"{}\" to \"{}\" does not exist",
                src.name(),
                dst.name()
            ),
        ));
    }
    let text: Cow<str> = match codec(src)? {
        Some(c) => c.to_utf8(bytes)?,
        None => Cow::Borrowed(utf8_in(bytes)?),
    };
    let mut out = Vec::with_capacity(text.len());
    match codec(dst)? {
        Some(c) => c.from_utf8(&text, &mut out)?,
        None => out.extend_from_slice(text.as_bytes()),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(name: &str) -> &'static Codec {
        codec(Enc::lookup(name).unwrap()).unwrap().unwrap()
    }

    #[test]
    fn names_and_aliases() {
        assert_eq!(Enc::lookup("latin1").unwrap().name(), "LATIN1");
        assert_eq!(Enc::lookup("ISO-8859-1").unwrap().name(), "LATIN1");
        assert_eq!(Enc::lookup("Windows-1251").unwrap().name(), "WIN1251");
        assert_eq!(Enc::lookup("Shift_JIS").unwrap().name(), "SJIS");
        assert_eq!(Enc::lookup("unicode").unwrap().name(), "UTF8");
        assert_eq!(Enc::lookup("iso_8859_5").unwrap().name(), "ISO_8859_5");
        assert_eq!(Enc::lookup("koi8").unwrap().name(), "KOI8R");
        assert!(Enc::lookup("bogus").is_none());
        assert!(Enc::lookup("").is_none());
        let mut sorted = ALIASES.to_vec();
        sorted.sort();
        assert_eq!(sorted, ALIASES, "ALIASES must stay sorted");
        for (i, n) in NAMES.iter().enumerate() {
            assert_eq!(Enc::lookup(n).unwrap().id(), i as i32, "{n}");
        }
    }

    #[test]
    fn refused_encodings() {
        for n in ["BIG5", "JOHAB", "EUC_TW", "MULE_INTERNAL", "SHIFT_JIS_2004"] {
            assert!(codec(Enc::lookup(n).unwrap()).is_err(), "{n}");
        }
        assert!(codec(Enc::UTF8).unwrap().is_none());
        assert!(codec(Enc::SQL_ASCII).unwrap().is_none());
    }

    #[test]
    fn latin1_and_windows() {
        let l1 = c("LATIN1");
        assert_eq!(l1.to_utf8(b"caf\xe9").unwrap(), "café");
        let mut out = Vec::new();
        l1.from_utf8("café", &mut out).unwrap();
        assert_eq!(out, b"caf\xe9");
        let e = l1.from_utf8("€", &mut Vec::new()).unwrap_err();
        assert_eq!(e.code, "22P05");
        assert_eq!(
            e.message,
            "character with byte sequence 0xe2 0x82 0xac in encoding \"UTF8\" has no equivalent in encoding \"LATIN1\""
        );
        let w = c("WIN1252");
        assert_eq!(w.to_utf8(b"\x80").unwrap(), "€");
        let e = w.to_utf8(b"a\x81").unwrap_err();
        assert_eq!(
            e.message,
            "character with byte sequence 0x81 in encoding \"WIN1252\" has no equivalent in encoding \"UTF8\""
        );
        assert_eq!(c("LATIN5").to_utf8(b"\x80\xd0").unwrap(), "\u{80}Ğ");
        assert_eq!(c("KOI8U").to_utf8(b"\xae").unwrap(), "╝");
        let e = l1.to_utf8(b"a\0b").unwrap_err();
        assert_eq!(
            e.message,
            "invalid byte sequence for encoding \"LATIN1\": 0x00"
        );
    }

    #[test]
    fn multibyte() {
        let sj = c("SJIS");
        assert_eq!(sj.to_utf8(b"\x82\xa0").unwrap(), "あ");
        let e = sj.to_utf8(b"\x82'").unwrap_err();
        assert_eq!(
            e.message,
            "invalid byte sequence for encoding \"SJIS\": 0x82 0x27"
        );
        let e = sj.to_utf8(b"\x85\x40").unwrap_err();
        assert_eq!(e.code, "22P05");
        let mut out = Vec::new();
        sj.from_utf8("Ⅰあ", &mut out).unwrap();
        assert_eq!(out, b"\xfa\x4a\x82\xa0");
        let gb = c("GB18030");
        assert_eq!(gb.to_utf8(b"\xa6\xd9").unwrap(), "\u{e78d}");
        let mut out = Vec::new();
        gb.from_utf8("\u{fe10}中", &mut out).unwrap();
        assert_eq!(out, b"\x84\x31\x82\x36\xd6\xd0");
        assert_eq!(c("EUC_KR").to_utf8(b"\xb0\xa1").unwrap(), "가");
        assert_eq!(c("EUC_JP").to_utf8(b"\xa4\xa2").unwrap(), "あ");
        assert_eq!(c("EUC_CN").to_utf8(b"\xd6\xd0").unwrap(), "中");
        assert_eq!(c("GBK").to_utf8(b"\x81\x40").unwrap(), "丂");
        assert_eq!(c("UHC").to_utf8(b"\x81\x41").unwrap(), "갂");
        assert!(c("EUC_KR").to_utf8(b"\x81\x41").is_err());
    }

    #[test]
    fn partial_characters() {
        let sj = c("SJIS");
        assert_eq!(sj.complete_prefix(b"a\x82"), 1);
        assert_eq!(sj.complete_prefix(b"a\x82\xa0"), 3);
        assert_eq!(c("LATIN1").complete_prefix(b"a\xe9"), 2);
    }

    #[test]
    fn frames() {
        let l1 = c("LATIN1");
        let mut conv = Vec::new();
        let mut f = vec![b'Q', 0, 0, 0, 9];
        f.extend_from_slice(b"\xe9'\0");
        f[4] = (f.len() - 1) as u8;
        assert!(l1.frame_to_utf8(&f, &mut conv).unwrap());
        assert_eq!(&conv[5..], "é'\0".as_bytes());
        assert_eq!(conv[4] as usize, conv.len() - 1);
        assert!(!l1.frame_to_utf8(b"Q\0\0\0\x06a\0", &mut conv).unwrap());
    }

    #[test]
    fn convert_functions() {
        let l1 = Enc::LATIN1;
        assert_eq!(convert("é".as_bytes(), Enc::UTF8, l1).unwrap(), b"\xe9");
        assert_eq!(convert(b"\xe9", l1, Enc::UTF8).unwrap(), "é".as_bytes());
        let e = convert(b"\xe9", l1, Enc::lookup("WIN1252").unwrap()).unwrap_err();
        assert_eq!(e.code, "42883");
        let (koi8r, win1251) = (
            Enc::lookup("KOI8R").unwrap(),
            Enc::lookup("WIN1251").unwrap(),
        );
        assert_eq!(convert(b"\xe9", win1251, koi8r).unwrap(), b"\xca");
        assert_eq!(char_count("日本".as_bytes(), Enc::UTF8).unwrap(), 2);
        assert_eq!(char_count(b"\x93\xfa\x96\x7b", Enc::SJIS).unwrap(), 2);
        assert_eq!(char_count(b"\xe9\xe9", l1).unwrap(), 2);
        let e = convert(b"\xe9", Enc::EUC_JP, l1).unwrap_err();
        assert_eq!(
            e.message,
            "invalid byte sequence for encoding \"EUC_JP\": 0xe9"
        );
    }

    /// Compares the codecs with dumps of PostgreSQL 15's own conversions (made with
    /// `convert_from` / `convert_to` over every two-byte sequence and every mapped character):
    /// `ENC_PG_DUMPS=dir cargo test --lib pg_dumps -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn pg_dumps() {
        let Ok(dir) = std::env::var("ENC_PG_DUMPS") else {
            return;
        };
        let mut bad = 0;
        for name in NAMES {
            let Ok(Some(codec)) = codec(Enc::lookup(name).unwrap()) else {
                continue;
            };
            let mut n = 0;
            for (file, decode) in [
                (format!("pgmb_{name}.txt"), true),
                (format!("pgmb3_{name}.txt"), true),
                (format!("pgmb4_{name}.txt"), true),
                (format!("pgenc_{name}.txt"), false),
            ] {
                let Ok(text) = std::fs::read_to_string(format!("{dir}/{file}")) else {
                    continue;
                };
                for line in text.lines() {
                    let (k, v) = line.split_once(' ').unwrap();
                    let mine = if decode {
                        let bytes: Vec<u8> = (0..k.len() / 2)
                            .map(|i| u8::from_str_radix(&k[2 * i..2 * i + 2], 16).unwrap())
                            .collect();
                        match codec.to_utf8(&bytes) {
                            Ok(s) => s
                                .chars()
                                .map(|c| format!("{:x}", c as u32))
                                .collect::<Vec<_>>()
                                .join("+"),
                            Err(_) => "!".into(),
                        }
                    } else {
                        let c = char::from_u32(u32::from_str_radix(k, 16).unwrap()).unwrap();
                        let mut out = Vec::new();
                        match codec.from_utf8(&c.to_string(), &mut out) {
                            Ok(()) => out.iter().map(|b| format!("{b:02x}")).collect(),
                            Err(_) => "!".into(),
                        }
                    };
                    let theirs = if v.starts_with('!') { "!" } else { v };
                    // The known difference (module comment): EUC_JP's IBM extensions.
                    let ibm = |x: &str| x.starts_with("8ff3") || x.starts_with("8ff4");
                    if name == "EUC_JP" && (ibm(k) || ibm(theirs)) && mine == "!" {
                        continue;
                    }
                    if mine != theirs {
                        n += 1;
                        if n <= 5 {
                            println!("{name} {file}: {k}: pg {theirs} mine {mine}");
                        }
                    }
                }
            }
            println!("{name}: {n} differences");
            bad += n;
        }
        assert_eq!(bad, 0);
    }
}
