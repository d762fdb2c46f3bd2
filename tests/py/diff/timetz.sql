-- Differential SQL cases: time with time zone (timetz): I/O, comparisons, casts, functions.

-- name: timetz_literals
SET TimeZone = 'UTC';
SELECT '10:11:12+00'::timetz, '10:11:12-03:30'::timetz, '10:11:12+05:45:30'::timetz, '23:59:59.999999+14'::timetz;
SELECT '00:00:00-15:59'::timetz, '24:00:00+01'::timetz, '10:11:12.5-08'::timetz, '1:2:3 +2'::timetz, '10:00'::timetz;
SELECT time with time zone '04:05:06 PST', timetz '04:05 EDT', '04:05:06.789 +0530'::timetz, '040506+07'::timetz;
SELECT '2024-07-01 10:00 America/New_York'::timetz, '2024-01-01 10:00 America/New_York'::timetz, '10:00 Etc/GMT+5'::timetz;
SELECT 'allballs'::timetz, '10:00 pm -01'::timetz, '12:00 am +00'::timetz, '10:00:00Z'::timetz, '10:00:00 UTC'::timetz;
SELECT '10:11:12.1234567+00'::timetz, '10:11:12+00'::timetz(0), '10:11:12.5+00'::timetz(0), '10:11:12.123456+02'::time(3) with time zone;
SELECT NULL::timetz, pg_typeof('10:00+01'::timetz), '10:00+01'::timetz IS NULL;

-- name: timetz_session_zone
SET TimeZone = 'Asia/Kolkata';
SELECT '10:00'::timetz, '2020-01-01 10:00'::timetz, '10:00+02'::timetz;
SET TimeZone = 'America/Sao_Paulo';
SELECT '10:00'::timetz, '12:34:56.789'::timetz, '10:00'::time::timetz;
SET TimeZone = 'Australia/Adelaide';
SELECT '10:00'::timetz, '10:00:00'::time::timetz;
SET DateStyle = 'SQL, DMY';
SELECT '10:00:01.25-02'::timetz;
SET DateStyle = 'German';
SELECT '10:00:01.25+02'::timetz;

-- name: timetz_invalid
-- @errors
SET TimeZone = 'UTC';
SELECT 'abc'::timetz;
SELECT '25:00:00+00'::timetz;
SELECT '10:61:00+00'::timetz;
SELECT '10:00+16'::timetz;
SELECT '10:00 America/New_York'::timetz;
SELECT '10:00 Nowhere/Zone'::timetz;
SELECT ''::timetz;
SELECT '10:00+01'::timetz(-1);
SELECT 'infinity'::timetz;
SELECT '2024-01-01'::timetz;
SELECT extract(day from '10:00+01'::timetz);
SELECT extract(nosuch from '10:00+01'::timetz);
SELECT '10:00+01'::timetz + 1;
SELECT '10:00+01'::timetz - '09:00+01'::timetz;

-- name: timetz_compare
SET TimeZone = 'UTC';
SELECT '10:00+00'::timetz = '11:00+01'::timetz, '10:00+00'::timetz < '11:00+01'::timetz, '11:00+01'::timetz < '10:00+00'::timetz;
SELECT '10:00+00'::timetz = '10:00+00'::timetz, '10:00+00'::timetz <> '10:00-00'::timetz, '10:00+02'::timetz > '10:00+01'::timetz;
SELECT '10:00+02'::timetz <= '09:00+01'::timetz, '10:00+02'::timetz >= '07:00-01'::timetz, '00:00+01'::timetz < '23:00-01'::timetz;
SELECT t FROM (VALUES ('10:00+00'::timetz), ('11:00+01'), ('09:30+00'), ('23:00-05'), (NULL), ('10:00-00:30')) v(t) ORDER BY t;
SELECT max(t), min(t), count(DISTINCT t) FROM (VALUES ('10:00+00'::timetz), ('11:00+01'), ('09:30+00')) v(t);
SELECT '10:00+00'::timetz IN ('11:00+01'::timetz, '10:00+01'), greatest('10:00+00'::timetz, '11:30+01'), least('10:00+00'::timetz, '12:00+03');

-- name: timetz_casts
SET TimeZone = 'Europe/Berlin';
SELECT '10:00:01+05'::timetz::time, '10:00:01.5+05'::timetz::text, '2024-07-01 12:00:00+00'::timestamptz::timetz;
SELECT '2024-01-01 12:00:00+00'::timestamptz::timetz, 'infinity'::timestamptz::timetz, '10:11:12.654321+02'::timetz::timetz(2);
SELECT CAST('10:00+01' AS time with time zone), '10:00-03'::text::timetz, '10:00-03'::varchar::timetz, ('10:00'::timetz)::time;
SELECT pg_typeof('10:00'::time::timetz), pg_typeof('10:00+01'::timetz::time), '10:00+01'::timetz::varchar(20);

-- name: timetz_arith_extract
SET TimeZone = 'UTC';
SELECT '10:00+02'::timetz + interval '1 hour', interval '15 hours' + '10:00+02'::timetz, '01:00-03'::timetz - interval '2 hours 30 minutes';
SELECT '23:30+00'::timetz + interval '1 day 1 hour', '10:00+02'::timetz - interval '3 days';
SELECT extract(hour from '10:11:12.5-03:30'::timetz), extract(minute from '10:11:12.5-03:30'::timetz), extract(second from '10:11:12.5-03:30'::timetz);
SELECT extract(timezone from '10:11:12-03:30'::timetz), extract(timezone_hour from '10:11:12-03:30'::timetz), extract(timezone_minute from '10:11:12-03:30'::timetz);
SELECT extract(epoch from '10:11:12.5-03:30'::timetz), extract(milliseconds from '10:11:12.5+01'::timetz), extract(microseconds from '10:11:12.5+01'::timetz);
SELECT date_part('hour', '10:11:12+05:45'::timetz), date_part('timezone', '10:11:12+05:45'::timetz), date_part('epoch', '10:11:12+05:45'::timetz);
SELECT extract(timezone_minute from '10:00+05:45:30'::timetz), extract(timezone from '10:00+05:45:30'::timetz), pg_typeof(extract(hour from '10:00+01'::timetz));

-- name: timetz_at_time_zone
SET TimeZone = 'UTC';
SELECT '10:00+02'::timetz AT TIME ZONE 'UTC', '10:00+02'::timetz AT TIME ZONE '+05', '10:00+02'::timetz AT TIME ZONE 'Asia/Kolkata';
SELECT '23:00-02'::timetz AT TIME ZONE 'Asia/Tokyo', '01:00+05'::timetz AT TIME ZONE interval '-03:00', timezone('EST', '12:00+00'::timetz);
SELECT '10:00:00'::time AT TIME ZONE 'UTC', pg_typeof('10:00+02'::timetz AT TIME ZONE 'UTC');

-- name: timetz_arrays
SET TimeZone = 'UTC';
SELECT ARRAY['10:00+01'::timetz, NULL, '23:59:59.5-03:30'], '{10:00+01,"11:00 -02"}'::timetz[], ARRAY[]::timetz[];
SELECT (ARRAY['10:00+01'::timetz, '11:00+02'])[2], '10:00+01'::timetz = ANY(ARRAY['09:00+00'::timetz]), pg_typeof(ARRAY['10:00+01'::timetz]);

-- name: timetz_current_time
SET TimeZone = 'UTC';
SELECT pg_typeof(current_time), pg_typeof(current_time(2)), pg_typeof(localtime), pg_typeof(localtime(0));
SELECT current_time::time = current_timestamp::time, current_time(0)::time = current_timestamp(0)::time, localtime = current_timestamp::time;
SELECT extract(timezone from current_time), current_time = current_timestamp::timetz, current_time IS NOT NULL;
SET TimeZone = 'Asia/Kathmandu';
SELECT extract(timezone from current_time), current_time::time = localtime, current_time(3) = current_timestamp(3)::timetz;

-- name: timetz_current_time_masked
-- @mask timestamps
SELECT current_time, current_time(0), localtime(1), now()::timetz;
