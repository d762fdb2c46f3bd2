-- Differential SQL cases: types, literals, casts, text and binary output.

-- name: type_int2_int4_int8
SELECT 1::int2, (-32768)::int2, 32767::smallint, 0::int2;
SELECT 1::int4, (-2147483648)::int4, 2147483647::integer, 42::INTEGER, 42::int;
SELECT 1::int8, (-9223372036854775808)::int8, 9223372036854775807::bigint;
SELECT 1::int2 + 1::int2, 1::int2 + 1, 1 + 1::int8, 2::int2 * 3::int8, 7::int8 / 2;
SELECT '  12  '::int, '-0'::int, '+5'::int8, int8 '123', int4 '-7';

-- name: type_numeric
SELECT 1.5, 0.1 + 0.2, 123456789012345678901234567890.123456789, -0.000001, 0.0, -0.0;
SELECT 1.50::numeric(10, 3), 12.345::numeric(4, 1), 2.5::decimal(3, 0), '1e10'::numeric, 1e-10::numeric;
SELECT 'NaN'::numeric, round(2.5), round(-2.5), round(1.2345, 2), trunc(1.999, 1), 10::numeric / 3;
SELECT 1::numeric / 7, 2::numeric ^ 64, 100::numeric, 100.000, 1000000000000000000000::numeric;
SELECT 0.00001230, 12300000::numeric, -123.456e3, 5::numeric(5, 2), sqrt(2::numeric);
SELECT '9999999999999999999999999999.9999'::numeric + 0.0001, 1.0 * 1.0, 10.0 - 10;

-- name: type_float8
SELECT 0.1::float8, 1.0::float8, 1e300::float8, 2.5e-10::float8, 123456789.123::float8, -0.0::float8;
SELECT 'Infinity'::float8, '-Infinity'::float8, 'NaN'::float8, 'inf'::double precision;
SELECT 1.0::float8 / 3, 2::float8 ^ 0.5, 1e15::float8 + 0.3, 1e16::float8, 1e-5::float8, 123e20::float8;
SELECT 3.14::float, 1.5::double precision, 3::float8 / 0.5;
SELECT 5e-324::float8, 1.7976931348623157e308::float8, 4.35::float8 * 100;

-- name: type_float4
SELECT 1.5::real, 0.1::float4, 16777217::float4, 1e30::float4, pg_typeof(1::float4 + 1);

-- name: type_text_varchar_bpchar
SELECT 'abc'::text, 'abc'::varchar, 'abcdef'::varchar(3), 'ab'::char(5), 'ab'::character(1), 'x'::char;
SELECT 'ab'::char(5) = 'ab', length('ab   '::char(5)), 'ab'::char(5) || 'c', octet_length('ab'::char(4));
SELECT 'ab'::varchar(10) || 'cd'::varchar(10), 'a'::text || 1, 1 || 'a'::text, 'é'::varchar(1);
SELECT 'Hello'::name, 'x'::"char", 'multi
line', E'tab\there', E'back\\slash', E'\u00e9', 'ünïcødé 日本';
SELECT ''::char(3), ''::varchar(2), NULL::text, 'a' = 'a ', 'a'::char(3) = 'a  '::char(3);

-- name: type_bool
SELECT true, false, 't'::bool, 'yes'::boolean, 'off'::bool, '1'::bool, 'FALSE'::bool, NULL::bool;
SELECT 1::bool, 0::bool, true::int, false::text, true = 't', true AND 'TRUE';

-- name: type_date
SELECT '2024-02-29'::date, date '2024-01-01' + 30, '2024-03-01'::date - '2024-01-01'::date;
SELECT 'infinity'::date, '-infinity'::date, '2000-01-01'::date - 1, '0001-01-01'::date, '4713-01-01 BC'::date;
SELECT '2020-01-02 +00'::date, 'January 8, 1999'::date, '1999-01-08'::date < '1999-01-09'::date;
SELECT '2024-01-31'::date + interval '1 month', date '2024-05-05' - interval '1 hour';

-- name: type_timestamp
SELECT '2024-01-02 03:04:05'::timestamp, '2024-01-02 03:04:05.123456'::timestamp, '2024-01-02'::timestamp;
SELECT '2020-01-02 03:04:05+00'::timestamp, '2020-01-02T03:04:05'::timestamp, 'infinity'::timestamp;
SELECT timestamp '2024-01-01 00:00:00' + interval '1 day 2 hours', '2024-03-01 00:00'::timestamp - '2024-02-01'::timestamp;
SELECT '2024-01-02 03:04:05.1'::timestamp(0), '2024-01-02 03:04:05.55555'::timestamp(2), '1999-12-31 23:59:59.999999'::timestamp;

-- name: type_timestamptz
SELECT '2024-01-02 03:04:05+02'::timestamptz, '2020-01-02T03:04:05.5+00:00'::timestamptz;
SELECT '2024-07-01 12:00:00 America/New_York'::timestamptz, '2024-01-01 00:00:00'::timestamptz;
SELECT timestamptz '2024-01-01 00:00:00+00' + interval '36 hours', '-infinity'::timestamptz;
SELECT '2024-01-01 10:00+00'::timestamptz - '2024-01-01 08:30+00'::timestamptz;
SELECT '2024-01-01 10:00+05:30'::timestamptz::timestamp, '2024-06-01 10:00'::timestamp::timestamptz;

-- name: type_interval
SELECT interval '1 year 2 months 3 days 04:05:06.789', '90 minutes'::interval, interval '-1 day';
SELECT 'P1Y2M3DT4H5M6S'::interval, '1 day'::interval * 3, interval '1 hour' / 4, '00:00:00'::interval;
SELECT interval '1 day' - interval '1 hour', interval '36 hours', interval '1 mon -1 day', '100 years'::interval;
SELECT '1.5 days'::interval, '-1 year -2 months'::interval, interval '59.999999 seconds', '1 week'::interval;

-- name: type_bytea
SELECT '\xdeadbeef'::bytea, 'abc'::bytea, ''::bytea, E'\\000\\001'::bytea, '\x'::bytea;
SELECT decode('616263', 'hex'), encode('abc'::bytea, 'hex'), encode('\x00ff'::bytea, 'base64');
SELECT length('\x0102'::bytea), 'ab'::bytea || 'cd'::bytea, md5('abc'::bytea), get_byte('\x0a0b'::bytea, 1);

-- name: type_oid_name
SELECT 123::oid, '4294967295'::oid, 23::regtype, 'int4'::regtype, 'text'::regtype::oid;
SELECT 'abc'::name, length('abc'::name), current_user::text, pg_typeof(current_user), 'pg_class'::regclass;
SELECT 'integer'::regtype, 'character varying'::regtype, 'timestamptz'::regtype::text, 1043::regtype;

-- name: type_void
SELECT pg_advisory_unlock_all();
SELECT pg_notify('unused_channel', 'x');
SELECT pg_typeof(pg_advisory_unlock_all()), pg_sleep(0);

-- name: type_arrays
SELECT ARRAY[1, 2, 3], '{1,2,3}'::int[], ARRAY['a', 'b c', NULL, 'd"e', 'f,g', ''], ARRAY[]::int[];
SELECT '{{1,2},{3,4}}'::int[], ARRAY[[1, 2], [3, 4]], (ARRAY[10, 20, 30])[2], (ARRAY[1, 2])[5];
SELECT ARRAY[1.5, 2]::numeric[], ARRAY[true, false], ARRAY['2024-01-01'::date], ARRAY[1::int8, NULL];
SELECT '{}'::text[], ARRAY[1, 2] || 3, 0 || ARRAY[1], ARRAY[1] || ARRAY[2, 3], array_length(ARRAY[1, 2, 3], 1);
SELECT 2 = ANY(ARRAY[1, 2]), 5 = ALL(ARRAY[5, 5]), 3 = ANY('{1,2}'::int[]), array_position(ARRAY['a', 'b'], 'b');
SELECT ARRAY[1.5::float8, 2.25], ARRAY['\x01'::bytea], ARRAY['x'::varchar(3)], ARRAY['a'::char(2)], '{23,25}'::oid[];
SELECT ARRAY['1 day'::interval], ARRAY['2024-01-01 00:00:00'::timestamp], ARRAY['abc'::name], ARRAY[1::int2];
SELECT array_dims('{{1,2},{3,4}}'::int[]), array_upper(ARRAY[1, 2], 1), cardinality(ARRAY[1, 2, 3]), array_to_string(ARRAY[1, 2, NULL], ',', '*');
SELECT unnest(ARRAY[3, 1, 2]) AS u;
SELECT * FROM unnest(ARRAY['x', 'y']) WITH ORDINALITY AS t(v, n);
SELECT array_agg(x) FROM generate_series(1, 3) x;
SELECT ARRAY(SELECT x * 2 FROM generate_series(1, 3) x), ARRAY['{}']::text[], ARRAY['NULL'], '{"a b","c\"d"}'::text[];

-- name: type_casts
SELECT '42'::int + 1, CAST('3.14' AS numeric), 3.7::int, (-3.5)::int, 2.5::int, 3.5::int, 2.5::float8::int;
SELECT 10::text || 'x', 'abc'::varchar::text, 12.5::float8::numeric, 1.23456789012345::float8::numeric, 0.1::numeric::float8;
SELECT '1 day'::interval::text, '2024-01-01'::date::timestamp, '2024-01-01 12:00'::timestamp::date, '123'::oid::int8;
SELECT 1::VARCHAR, 1::INTEGER, '1'::NUMERIC(5, 2), 300::int2::int8, 1::int8::int4, '2024-01-01'::timestamptz::date;
SELECT CAST(1.99 AS int), CAST('t' AS boolean), CAST(1 AS text), CAST('2024-02-03' AS date), CAST(7 AS numeric(5, 1));
SELECT 12::float8::text, 1e100::float8::text, 0.5::float8::int, 1.5::float8::int, 65::int2::text, 'x'::char(3)::text;
SELECT true::text, 'true'::text::bool, 'yes'::text::bool, 1::int4::bool::int4;

-- name: type_pg_typeof
SELECT pg_typeof(1), pg_typeof(1.0), pg_typeof(2147483648), pg_typeof('a'), pg_typeof('a'::text || 1);
SELECT pg_typeof(1::int2 + 1::int2), pg_typeof(1::int2 + 1), pg_typeof(1 + 1::int8), pg_typeof(1 / 2.0), pg_typeof(1::float8 + 1);
SELECT pg_typeof(now()), pg_typeof(current_date), pg_typeof(localtimestamp), pg_typeof(current_timestamp - now());
SELECT pg_typeof(NULL), pg_typeof(ARRAY[1]), pg_typeof(count(*)), pg_typeof(sum(1)), pg_typeof(sum(1::int8)), pg_typeof(avg(1));
SELECT pg_typeof(sum(1.0)), pg_typeof(avg(1.0::float8)), pg_typeof(max('a'::varchar)), pg_typeof(extract(year from now()));
SELECT pg_typeof('a'::char(2) || 'b'), pg_typeof(1::oid), pg_typeof(current_schema()), pg_typeof(version()), pg_typeof(pg_backend_pid());
SELECT pg_typeof(CASE WHEN true THEN 1 ELSE 1.5 END), pg_typeof(coalesce(1, 2::int8)), pg_typeof(x) FROM generate_series(1::int8, 1) x;

-- name: reg_types_read_dash_as_invalid_oid
-- @errors
SELECT '-'::regclass, '-'::regtype, '-'::regnamespace, '-'::regprocedure, '-'::regproc, '-'::regrole;
SELECT '-'::regclass::oid, '-'::regtype::oid, '-'::regnamespace::oid, '-'::regprocedure::oid;
SELECT '0'::regtype, '0'::regtype::text::regtype::oid;
SELECT 'int2eq'::regproc, 'int2eq'::regproc::oid, ' 63 '::regproc, 63::oid::regproc::text::regproc::oid;
SELECT 2244::oid::regproc, 'pg_catalog.int4pl'::regproc, 177::oid::regproc;

-- name: time_hhmm_hour_24
-- @errors
SELECT '2400'::time, '2400'::timetz;
SELECT '2442'::timetz;
SELECT '2442'::time;
SELECT '240001'::time;

-- name: json_build_with_json_values_and_rows
-- @errors
-- json and jsonb values go into json[b]_build_object / _array as JSON, not as strings; a
-- whole row as an object with its column names; in a grouped query only a grouped row.
DROP TABLE IF EXISTS jbv;
CREATE TABLE jbv (a int PRIMARY KEY, b jsonb, c json, d text);
INSERT INTO jbv VALUES (1, '{"x": [1]}', '[2]', 'q'), (2, 'null', '{"y" : 3}', NULL);
SELECT jsonb_build_object('k', jsonb_build_array(1, 2)), json_build_object('k', json_build_array(1, 2));
SELECT jsonb_build_array(jsonb_build_object('a', 1), '{"z":1}'::json, NULL, 'x', 2.5);
SELECT json_build_object('r', jbv), jsonb_build_object('r', jbv, 'b', b), json_build_array(jbv, c) FROM jbv ORDER BY a;
SELECT json_build_object('k', b, 'c', c), jsonb_build_array(b, c, d) FROM jbv ORDER BY a;
SELECT row_to_json(jbv), count(*) FROM jbv GROUP BY a ORDER BY a;
SELECT jbv, count(*) FROM jbv GROUP BY a ORDER BY a;
SELECT jsonb_build_object('a', b), count(*) FROM jbv GROUP BY b ORDER BY 1;
SELECT row_to_json(jbv), count(*) FROM jbv;
SELECT json_build_object('r', jbv), count(*) FROM jbv;
SELECT jbv, count(*) FROM jbv GROUP BY d;
SELECT json_build_object(b, 1) FROM jbv;
SELECT jsonb_build_object(ARRAY[1], 1);
SELECT json_build_object('a', 1, 'b');
DROP TABLE jbv;

-- name: size_pretty_and_size_bytes
-- @errors
SELECT s, pg_size_pretty(s), pg_size_pretty(-1 * s) FROM (VALUES (10::bigint), (1000000000000), (1000000000000000), (10485247), (11258449312612352)) v(s);
SELECT s, pg_size_pretty(s), pg_size_pretty(-1 * s) FROM (VALUES (10.5::numeric), (1000000000000.5), (1e30), (-1e40)) v(s);
SELECT s, pg_size_bytes(s) FROM (VALUES ('1'), ('123bYteS'), (' 1.5 gB '), ('-10e-1 MB'), ('1e6 mb'), ('-.1kb'), ('-0. gb'), ('1 e')) v(s);
SELECT pg_size_bytes('1 AB A    ');
SELECT pg_size_bytes('1 byte');
SELECT pg_size_bytes('');
SELECT pg_size_bytes('kb');
SELECT pg_size_bytes('.+912');
SELECT pg_size_bytes('9223372036854775807.9');
SELECT pg_size_bytes('1e1000000000000000000');
SELECT '1e100000'::numeric > 0, '1e1000000'::numeric;
SELECT '1e-1000000'::numeric;
