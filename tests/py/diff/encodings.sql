-- Differential SQL cases: client encodings (issue 20): client_encoding's names and aliases,
-- SET / RESET / SET NAMES, pg_client_encoding(), and the conversion functions convert_to,
-- convert_from and convert with PostgreSQL's errors. The wire conversion itself is tested with
-- real clients in test_encodings.py.

-- name: enc_convert_to
SELECT convert_to('café', 'LATIN1'), convert_to('café', 'latin-1'), convert_to('€', 'WIN1252');
SELECT convert_to('Привет', 'WIN1251'), convert_to('Привет', 'KOI8R'), convert_to('Привет', 'ISO_8859_5');
SELECT convert_to('日本語ｶﾅ', 'SJIS'), convert_to('日本語', 'EUC_JP'), convert_to('Ⅰ№', 'Shift_JIS');
SELECT convert_to('中文', 'GB18030'), convert_to('中文', 'GBK'), convert_to('中文', 'EUC_CN');
SELECT convert_to('한국어', 'EUC_KR'), convert_to('갂', 'UHC'), convert_to('x', 'UTF8'), convert_to('é', 'SQL_ASCII');
SELECT convert_to('Ελλάδα', 'ISO_8859_7'), convert_to('שלום', 'WIN1255'), convert_to('ğİ', 'LATIN5');

-- name: enc_convert_from
SELECT convert_from('\xe9', 'LATIN1'), convert_from('\x80', 'win1252'), convert_from('\xcff0e8e2e5f2', 'WIN1251');
SELECT convert_from('\x82a0', 'SJIS'), convert_from('\xa4a2', 'EUC_JP'), convert_from('\xb0a1', 'EUC_KR');
SELECT convert_from('\xd6d0cec4', 'GB18030'), convert_from('\x8140', 'GBK'), convert_from('\x8141', 'UHC');
SELECT convert_from('\xae', 'KOI8U'), convert_from('\x80', 'LATIN5'), convert_from('\xc3a9', 'UTF8');

-- name: enc_convert_between
SELECT convert('\xe9', 'WIN1251', 'KOI8R'), convert('\xe9', 'LATIN1', 'UTF8'), convert('\xc3a9', 'UTF8', 'LATIN1');
SELECT convert('\x82a0', 'SJIS', 'EUC_JP'), convert('\xe9', 'LATIN1', 'LATIN1'), convert('\xe9', 'LATIN1', 'SQL_ASCII');

-- name: enc_convert_errors
-- @errors
SELECT convert_to('€', 'LATIN1');
SELECT convert_to('a✓', 'WIN1252');
SELECT convert_from('\x81', 'WIN1252');
SELECT convert_from('\x82', 'SJIS');
SELECT convert_from('\x8227', 'SJIS');
SELECT convert_from('\x8540', 'SJIS');
SELECT convert_from('\xe9', 'UTF8');
SELECT convert_from('\x8141', 'EUC_KR');
SELECT convert_from('\x00', 'LATIN1');
SELECT convert_to('x', 'bogus');
SELECT convert_from('x', 'no such');
SELECT convert('\xe9', 'LATIN1', 'WIN1252');
SELECT convert('\xe9', 'EUC_JP', 'LATIN1');

-- name: enc_convert_in_rows
SELECT v, convert_to(v, 'LATIN1') FROM (VALUES ('a'), ('é'), ('b')) t(v) ORDER BY v;

-- name: enc_convert_row_error
-- @errors
SELECT v, convert_to(v, 'LATIN1') FROM (VALUES ('a'), ('€'), ('b')) t(v) ORDER BY v;

-- name: enc_client_encoding_set_show
SHOW client_encoding;
SELECT pg_client_encoding();
SET client_encoding TO 'latin1';
SHOW client_encoding;
SELECT pg_client_encoding(), current_setting('client_encoding');
SET client_encoding = 'Windows-1251';
SHOW client_encoding;
SET NAMES 'iso_8859_5';
SHOW client_encoding;
SET client_encoding = 'sjis';
SHOW client_encoding;
SET client_encoding = 'ShiftJIS';
SHOW client_encoding;
SET client_encoding = 'unicode';
SHOW client_encoding;
SET client_encoding = 'sql_ascii';
SHOW client_encoding;
RESET client_encoding;
SHOW client_encoding;
SET client_encoding = 'latin9';
SET client_encoding = DEFAULT;
SHOW client_encoding;

-- name: enc_client_encoding_errors
-- @errors
SET client_encoding = 'bogus';
SET client_encoding = 'mule_internal';
SET client_encoding = '';
SET NAMES 'no_such';
SHOW client_encoding;

-- name: enc_client_encoding_transaction
BEGIN;
SET client_encoding = 'koi8r';
SHOW client_encoding;
ROLLBACK;
SHOW client_encoding;
BEGIN;
SET LOCAL client_encoding = 'win1250';
SHOW client_encoding;
COMMIT;
SHOW client_encoding;
SELECT set_config('client_encoding', 'latin2', false);
SHOW client_encoding;
RESET client_encoding;

-- name: enc_length_in_encoding
SELECT length('\xe9e9'::bytea, 'LATIN1'), length(convert_to('日本語', 'SJIS'), 'SJIS'), length('\xc3a9'::bytea, 'UTF8');
SELECT length(convert_to('中文 𠀀', 'gb18030'), 'GB18030'), length(convert_to('한국어', 'UHC'), 'win949');
