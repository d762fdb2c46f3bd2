-- Differential SQL cases: SET / SHOW / RESET, ParameterStatus on change.

-- name: show_defaults
SHOW standard_conforming_strings;
SHOW client_encoding;
SHOW DateStyle;
SHOW datestyle;
SHOW TimeZone;
SHOW timezone;
SHOW IntervalStyle;
SHOW integer_datetimes;
SHOW transaction_isolation;
SHOW default_transaction_isolation;
SHOW search_path;
SHOW statement_timeout;
SHOW idle_in_transaction_session_timeout;
SHOW extra_float_digits;
SHOW application_name;
SHOW server_encoding;
SHOW is_superuser;
SHOW default_transaction_read_only;
SHOW transaction_read_only;
SHOW session_authorization;
SHOW TIME ZONE;
SHOW TRANSACTION ISOLATION LEVEL;

-- name: set_application_name
SET application_name = 'myapp';
SHOW application_name;
SET application_name TO 'other app';
SET application_name = myapp2;
SET SESSION application_name = 'sess';
RESET application_name;
SHOW application_name;
SET application_name = 'PostgreSQL JDBC Driver';
SET application_name TO DEFAULT;
SHOW application_name;

-- name: set_timezone
SET TimeZone = 'America/New_York';
SELECT '2024-01-01 00:00:00+00'::timestamptz, '2024-07-01 00:00:00+00'::timestamptz;
SHOW TimeZone;
SET TIME ZONE 'UTC';
SELECT '2024-01-01 00:00:00+00'::timestamptz;
SET timezone TO 'Asia/Kolkata';
SELECT '2024-01-01 00:00:00+00'::timestamptz, '2024-01-01 12:00'::timestamptz::text;
SET TIME ZONE LOCAL;
SHOW TimeZone;
SET TIME ZONE 'Europe/Berlin';
SELECT extract(timezone from '2024-07-01 00:00'::timestamptz), to_char('2024-07-01 00:00+00'::timestamptz, 'HH24:MI TZ');
RESET TimeZone;
SHOW timezone;

-- name: set_datestyle
SET DateStyle = 'ISO, DMY';
SELECT '01/02/2024'::date, '2024-01-02'::date;
SHOW DateStyle;
SET datestyle TO 'ISO, MDY';
SELECT '01/02/2024'::date;
SET DateStyle = ISO;
SHOW DateStyle;
RESET DateStyle;

-- name: set_datestyle_other_output
SET DateStyle = 'Postgres, MDY';
SELECT '2024-01-02 03:04:05'::timestamp, '2024-01-02'::date;
SET DateStyle = 'SQL, DMY';
SELECT '2024-01-02 03:04:05'::timestamp, '2024-01-02'::date;
SET DateStyle = 'German';
SELECT '2024-01-02'::date;
RESET DateStyle;

-- name: set_intervalstyle
SET IntervalStyle = 'iso_8601';
SELECT interval '1 day 2 hours', interval '1 year 3 months -4 minutes';
SET IntervalStyle = 'sql_standard';
SELECT interval '1 day 2 hours';
SET IntervalStyle = 'postgres_verbose';
SELECT interval '1 day 2 hours 3.5 seconds';
RESET IntervalStyle;
SHOW IntervalStyle;

-- name: set_extra_float_digits
SET extra_float_digits = 0;
SELECT 0.1::float8, 1::float8 / 3, 1e100::float8, 2.5::float8;
SET extra_float_digits = 3;
SELECT 0.1::float8, 1::float8 / 3;
SET extra_float_digits = -15;
SELECT 1::float8 / 3, 123.456::float8;
SET extra_float_digits TO 2;
SHOW extra_float_digits;

-- name: set_search_path
SET search_path TO public;
SHOW search_path;
SET search_path = "$user", public;
SHOW search_path;
SET search_path = pg_catalog, public;
SELECT current_schema(), current_schemas(false);
RESET search_path;
SHOW search_path;

-- name: set_statement_timeout_values
SET statement_timeout = '5s';
SHOW statement_timeout;
SET statement_timeout = 100;
SHOW statement_timeout;
SET statement_timeout = '1min';
SHOW statement_timeout;
SET statement_timeout = 0;
SHOW statement_timeout;
SET idle_in_transaction_session_timeout = '10s';
SHOW idle_in_transaction_session_timeout;

-- name: set_statement_timeout_fires
-- @errors
SET statement_timeout = 50;
SELECT pg_sleep(5);
SELECT 'after';
RESET statement_timeout;

-- name: set_client_encoding
SET client_encoding = 'UTF8';
SET client_encoding TO 'utf8';
SET NAMES 'UTF8';
SHOW client_encoding;

-- name: set_errors
-- @errors
SET nosuch_param = 1;
SHOW nosuch_param;
RESET nosuch_param;
SET statement_timeout = 'abc';
SET DateStyle = 'foo';
SET extra_float_digits = 10;
SET TimeZone = 'No/Such_Zone';
SET transaction_isolation = 'bogus';
SET search_path = ;
SET IntervalStyle = 'nope';
SHOW;

-- name: reset_all
SET application_name = 'a';
SET DateStyle = 'ISO, DMY';
SET TimeZone = 'Asia/Tokyo';
SET IntervalStyle = 'iso_8601';
SET extra_float_digits = 0;
SET search_path = pg_catalog;
SET statement_timeout = '3s';
RESET ALL;
SHOW application_name;
SHOW DateStyle;
SHOW statement_timeout;
SHOW search_path;

-- name: set_config_functions
SELECT set_config('application_name', 'via_fn', false);
SHOW application_name;
BEGIN;
SELECT set_config('statement_timeout', '7s', true);
SHOW statement_timeout;
COMMIT;
SHOW statement_timeout;
SELECT current_setting('application_name'), current_setting('DateStyle'), current_setting('TimeZone'), current_setting('integer_datetimes');
SELECT current_setting('transaction_isolation'), current_setting('standard_conforming_strings'), current_setting('max_connections')::int > 0;

-- name: set_multiple_in_one_query
-- @modes simple
SET application_name = 'first'; SELECT 1; SET application_name = 'second';
SET application_name = 'x'; SET application_name = '';
SET TimeZone = 'Asia/Tokyo'; RESET TimeZone;

-- name: set_time_zone_forms
-- @errors
SET TimeZone = '+03:30';
SHOW TimeZone;
SELECT '2024-01-01 12:00:00+00'::timestamptz::text;
SET TIME ZONE '-3:30';
SHOW TimeZone;
SET TIME ZONE INTERVAL '+02:00' HOUR TO MINUTE;
SHOW TimeZone;
SELECT '2024-01-01 12:00:00+00'::timestamptz::text;
SET TIME ZONE INTERVAL '1 day';
SET TIME ZONE 5;
SHOW TimeZone;
SET TimeZone = 'UTC+3';
SHOW TimeZone;
SET TimeZone = 'europe/paris';
SHOW TimeZone;
SET TimeZone = 'no/such_zone';
RESET TimeZone;
SHOW TimeZone;

-- name: boolean_setting_spellings
-- @errors
SET enable_seqscan = 'tr';
SHOW enable_seqscan;
SET enable_seqscan = 'of';
SHOW enable_seqscan;
SET enable_seqscan = 'YE';
SHOW enable_seqscan;
SET enable_seqscan = ' n';
SET enable_seqscan = 'o';
SET enable_seqscan = 1;
SHOW enable_seqscan;
RESET enable_seqscan;
