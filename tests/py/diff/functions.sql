-- Differential SQL cases: scalar functions (string, math, date/time, system).

-- name: fn_string_basic
SELECT length('héllo'), char_length('abc'), octet_length('héllo'), upper('abcé'), lower('ABC'), initcap('hello wORLD');
SELECT substring('abcdef' from 2 for 3), substring('abcdef', 3), substr('abcdef', 2, 2), substr('abc', 0, 2), left('abcdef', 2), right('abcdef', 2);
SELECT position('b' in 'abc'), strpos('abcabc', 'ca'), replace('a-b-c', '-', '+'), reverse('abc'), repeat('ab', 3), repeat('x', 0);
SELECT trim('  x  '), trim(both 'x' from 'xxaxx'), trim(leading 'x' from 'xxaxx'), trim(trailing from '  b  '), ltrim('  a'), rtrim('a  '), btrim('xyax', 'xy');
SELECT lpad('7', 3, '0'), rpad('ab', 5, '*'), lpad('abcdef', 3), rpad('a', 3), split_part('a,b,c', ',', 2), split_part('a,b', ',', 5);
SELECT concat('a', NULL, 1, true), concat_ws('-', 'a', NULL, 'b'), 'a' || NULL, 'x' || 1 || true, translate('abcd', 'ac', 'xy');
SELECT ascii('A'), chr(65), chr(233), md5('abc'), to_hex(255), to_hex(-1), quote_ident('Foo bar'), quote_literal('it''s'), quote_nullable(NULL);
SELECT starts_with('abc', 'ab'), 'abc' LIKE 'a_c', 'ABC' ILIKE 'a%', 'abc' ~ '^a.c$', 'abc' ~* 'B', 'abc' !~ 'z', 'a%' LIKE 'a\%';
SELECT regexp_replace('a1b22c', '[0-9]+', '#', 'g'), regexp_replace('abc', 'b', 'X'), regexp_match('foo123', '[0-9]+'), string_to_array('a,b,,c', ',');
SELECT format('%s-%s', 'a', 1), format('%I', 'Col'), format('%L', 'x''y'), format('%3s|%-3s|', 'a', 'b'), format('%1$s %1$s', 'r');
SELECT format('%I.%I.%I.%I', 'select', 'int', 'left', 'json'), format('%I', 'a$b'), quote_ident('a$b'), quote_ident('select'), quote_ident('name'), format('%L', E'a\\b'), quote_literal(E'a\\b');
SELECT string_agg(s, ', ' ORDER BY s) FROM (VALUES ('b'), ('a'), ('c')) t(s);
SELECT overlay('abcdef' placing 'XY' from 2 for 3), 'abc' || 'def' = 'abcdef', 'a' < 'ab', 'Z' < 'a', 'abc' > 'abd';

-- name: fn_math
SELECT abs(-5), abs(-5.5), abs(-2::int8), ceil(1.2), ceil(-1.2), floor(1.8), floor(-1.8), ceiling(2.1::float8);
SELECT round(1.5), round(-1.5), round(1.234567, 3), round(2.5::float8), round(3.5::float8), round(1234.5678, -2), trunc(-1.7), trunc(12.345, 2);
SELECT mod(7, 3), mod(-7, 3), mod(7.5, 2), div(7, 2), div(-7, 2), power(2, 10), power(2.0, 0.5), power(2::float8, -1);
SELECT sqrt(16), sqrt(2::float8), cbrt(27::float8), exp(1::float8), exp(1.0), ln(10::float8), ln(10.0), log(100), log(2, 8), log10(1000::float8);
SELECT sign(-3), sign(0.0), sign(2::float8), pi(), degrees(pi()), radians(180), sin(0), cos(0::float8), atan2(1, 1);
SELECT greatest(1, 2.5, 2), least(3, 1, 2), greatest('a', 'b'), least(NULL, 1), gcd(12, 18), lcm(4, 6), factorial(5);
SELECT width_bucket(5.35, 0.024, 10.06, 5), random() >= 0 AND random() < 1, setseed(0.5) IS NULL, 5 / 2 * 2.0;
SELECT 'NaN'::float8 = 'NaN'::float8, 'NaN'::numeric > 1, 0.1::float8 * 3, 1 / 3::float8 * 3;

-- name: fn_datetime_deterministic
SELECT extract(year from timestamp '2024-02-29 13:14:15.5'), extract(month from date '2024-02-29'), extract(dow from date '2024-02-29');
SELECT extract(epoch from timestamptz '2024-01-01 00:00:00+00'), extract(epoch from interval '1 day 1 second'), extract(hour from interval '25 hours');
SELECT date_part('day', timestamp '2024-02-29 13:00'), date_part('epoch', timestamp '1970-01-02'), extract(doy from date '2024-12-31'), extract(isodow from date '2024-01-07');
SELECT date_trunc('month', timestamp '2024-02-29 13:14:15'), date_trunc('hour', timestamptz '2024-02-29 13:14:15+00'), date_trunc('day', interval '1 day 5 hours');
SELECT age(timestamp '2024-03-15', timestamp '2023-01-10'), age(date '2024-01-01', date '2020-06-15'), justify_hours(interval '27 hours'), justify_days(interval '35 days');
SELECT to_char(timestamp '2024-01-02 03:04:05.678', 'YYYY-MM-DD HH24:MI:SS.MS'), to_char(date '2024-07-04', 'Dy, DD Mon YYYY'), to_char(1234.5, '99999.99'), to_char(42, '000');
SELECT make_date(2024, 2, 29), make_timestamp(2024, 1, 2, 3, 4, 5.5), make_interval(days => 10, hours => 2), make_time(1, 2, 3);
SELECT to_timestamp(0), to_timestamp(1700000000.5), to_date('2024-05-06', 'YYYY-MM-DD'), to_timestamp('2024-01-02 03:04', 'YYYY-MM-DD HH24:MI');
SELECT date '2024-03-31' - 1, date '2024-03-31' + 1, timestamp '2024-01-01' - date '2023-12-31', date '2024-01-01' + time '10:30';
SELECT '2024-01-01 00:00:00+00'::timestamptz AT TIME ZONE 'Asia/Tokyo', timestamp '2024-06-01 12:00' AT TIME ZONE 'Europe/Paris';
SELECT (date '2024-01-01', date '2024-02-01') OVERLAPS (date '2024-01-15', date '2024-03-01'), isfinite(date 'infinity'), isfinite(timestamp '2024-01-01');

-- name: fn_datetime_now
SELECT now() = current_timestamp, now() IS NOT NULL, current_date = now()::date, now() > '2020-01-01', pg_typeof(now());
SELECT localtimestamp <= now()::timestamp, current_time IS NOT NULL, clock_timestamp() >= now(), statement_timestamp() >= transaction_timestamp();
SELECT extract(year from now()) >= 2024, NOW() - CURRENT_TIMESTAMP, date_trunc('day', now()) <= now(), transaction_timestamp() = now();
SELECT now() - interval '1 day' < now(), age(now(), now()), timeofday() IS NOT NULL, CURRENT_TIMESTAMP(0) <= now() + interval '1 second';

-- name: fn_datetime_now_masked
-- @mask timestamps
SELECT now(), current_timestamp, localtimestamp, current_date, now()::date, now()::timestamp(0), current_time;
SELECT date_trunc('day', now()), now() + interval '1 day', to_char(now(), 'YYYY-MM-DD');

-- name: fn_version_masked
-- @mask version,pids
SELECT version(), pg_backend_pid();

-- name: fn_system
SELECT version() LIKE 'PostgreSQL 15.%', pg_catalog.version() ~ '^PostgreSQL 15\.', current_schema(), current_schema, current_schemas(true), current_schemas(false);
SELECT current_database(), current_catalog, current_user, session_user, user, current_role, pg_backend_pid() > 0;
SELECT current_setting('standard_conforming_strings'), current_setting('server_version_num')::int / 10000, current_setting('statement_timeout'), current_setting('nosuch', true);
SELECT set_config('search_path', 'public', false), current_setting('search_path'), set_config('application_name', 'fn_test', false);
SELECT to_regtype('int4'), to_regtype('integer'), to_regtype('nosuchtype'), to_regtype('varchar')::oid, to_regtype('pg_catalog.text');
SELECT pg_advisory_unlock_all(), pg_sleep(0), pg_sleep(0.01), pg_notify('chan_unused', NULL);

-- name: fn_system_extra
SELECT inet_client_addr() = '127.0.0.1', inet_server_port() IS NOT NULL, pg_is_in_recovery(), txid_current() > 0, pg_current_xact_id() IS NOT NULL;
SELECT has_database_privilege('postgres', 'CONNECT'), pg_client_encoding(), obj_description(0), pg_get_userbyid(10) IS NOT NULL;

-- name: fn_backend_pid_matches_key
SELECT pg_backend_pid() = pg_backend_pid(), pg_typeof(pg_backend_pid());
SELECT count(*) FROM pg_stat_activity WHERE pid = pg_backend_pid();
SELECT state, query, datname, usename, application_name FROM pg_stat_activity WHERE pid = pg_backend_pid();
SELECT client_addr, backend_start <= now(), wait_event_type IS NULL FROM pg_stat_activity WHERE pid = pg_backend_pid();
