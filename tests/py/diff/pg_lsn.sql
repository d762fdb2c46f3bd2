-- Differential SQL cases: the pg_lsn type and the write-ahead log position functions (issue
-- 29). Text form, errors, order, arithmetic with numeric, arrays and table columns, and the
-- functions over positions. The current positions differ between servers, so only their type
-- and their relations are compared. Tables are named lsn_...

-- name: lsn_text_form_and_errors
-- @errors
SELECT '16/B374D848'::pg_lsn, 'ffffffff/ffffffff'::pg_lsn, '0/0'::pg_lsn, '1/2'::pg_lsn::text;
SELECT 'x'::pg_lsn;
SELECT '1/2 '::pg_lsn;
SELECT ' 1/2'::pg_lsn;
SELECT '100000000/0'::pg_lsn;
SELECT '1/'::pg_lsn;
SELECT 5::bigint::pg_lsn;
SELECT '1/0'::pg_lsn::bigint;

-- name: lsn_order_and_arithmetic
-- @errors
SELECT 'FFFFFFFF/FFFFFFFF'::pg_lsn > '1/0', '1/2'::pg_lsn < '1/3', '1/2'::pg_lsn = '1/2', '1/2'::pg_lsn <> '1/2', '0/1'::pg_lsn >= '0/1';
SELECT '16/B374D848'::pg_lsn - '0/0', '0/0'::pg_lsn - '16/B374D848', '0/10'::pg_lsn + 16, 16 + '0/1'::pg_lsn, '0/10'::pg_lsn - 3, '1/2'::pg_lsn + 1.5;
SELECT 'FFFFFFFF/FFFFFFFF'::pg_lsn + 1;
SELECT '0/0'::pg_lsn - 1;
SELECT '1/2'::pg_lsn - 'NaN'::numeric;
SELECT '1/2'::pg_lsn + 'NaN'::numeric;
SELECT pg_typeof('1/2'::pg_lsn - '1/1'), pg_typeof('1/2'::pg_lsn + 1);

-- name: lsn_columns_arrays_aggregates
DROP TABLE IF EXISTS lsn_t;
CREATE TABLE lsn_t (x pg_lsn PRIMARY KEY);
INSERT INTO lsn_t VALUES ('2/0'), ('1/FFFFFFFF'), ('0/5'), ('FFFFFFFF/0');
SELECT x FROM lsn_t ORDER BY x;
SELECT max(x), min(x), count(*) FROM lsn_t;
SELECT x FROM lsn_t WHERE x > '1/0' ORDER BY x DESC;
SELECT array['1/2', '3/4']::pg_lsn[], (array['1/2', '3/4']::pg_lsn[])[2];
SELECT format_type('pg_lsn'::regtype, NULL), typlen, typbyval, typcategory FROM pg_type WHERE typname = 'pg_lsn';
DROP TABLE lsn_t;

-- name: lsn_functions
SELECT pg_wal_lsn_diff('1/0', '0/1'), pg_wal_lsn_diff('0/1', '1/0'), pg_wal_lsn_diff(NULL, '0/0');
SELECT pg_walfile_name('0/1000000'), pg_walfile_name('0/1000001'), pg_walfile_name('1/0'), pg_walfile_name(NULL);
SELECT pg_typeof(pg_current_wal_lsn()), pg_typeof(pg_current_wal_insert_lsn()), pg_typeof(pg_current_wal_flush_lsn());
SELECT pg_current_wal_insert_lsn() >= pg_current_wal_lsn(), pg_current_wal_lsn() >= pg_current_wal_flush_lsn(), pg_current_wal_flush_lsn() > '0/0';
SELECT length(pg_walfile_name(pg_current_wal_lsn())), pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') > 0;

-- name: lsn_control_functions
-- The control data: PostgreSQL 15's columns and types, the values both servers share, and
-- the relations between the checkpoint's positions and the log's.
SELECT * FROM pg_control_init();
SELECT * FROM pg_control_recovery();
SELECT pg_control_version, catalog_version_no, pg_typeof(system_identifier), system_identifier <> 0, pg_typeof(pg_control_last_modified) FROM pg_control_system();
SELECT timeline_id, prev_timeline_id, oldest_xid_dbid, oldest_multi_dbid, oldest_commit_ts_xid, newest_commit_ts_xid, pg_typeof(next_multixact_id), next_multixact_id::text::bigint > 0 FROM pg_control_checkpoint();
SELECT pg_typeof(checkpoint_lsn), pg_typeof(redo_lsn), pg_typeof(next_xid), pg_typeof(next_oid), pg_typeof(oldest_xid), pg_typeof(checkpoint_time) FROM pg_control_checkpoint();
SELECT redo_lsn <= checkpoint_lsn, checkpoint_lsn <= pg_current_wal_insert_lsn(), length(redo_wal_file), next_xid ~ '^[0-9]+:[0-9]+$', checkpoint_time <= now(), checkpoint_time = date_trunc('second', checkpoint_time) FROM pg_control_checkpoint();
SELECT c.ordinality, c.timeline_id FROM pg_catalog.pg_control_checkpoint() WITH ORDINALITY AS c;
