-- Differential SQL cases: single-session LISTEN / NOTIFY (see ../test_notify_diff.py for multi-session).

-- name: notify_self
LISTEN a;
NOTIFY a;
NOTIFY a, 'payload';
SELECT pg_notify('a', 'from function');
SELECT pg_notify('a', NULL);
NOTIFY b;
UNLISTEN a;
NOTIFY a;

-- name: notify_identifiers
LISTEN Mixed;
LISTEN "Quoted";
NOTIFY MIXED, 'folded';
NOTIFY "Mixed", 'not folded';
NOTIFY mixed, 'lower';
NOTIFY "Quoted", 'q';
NOTIFY quoted, 'unquoted';
LISTEN "full";
NOTIFY "full", 'reserved word quoted';
SELECT pg_notify('Mixed', 'fn exact case');
SELECT pg_notify('mixed', 'fn lower');
UNLISTEN *;

-- name: notify_truncation_notice
LISTEN abcdefghij_abcdefghij_abcdefghij_abcdefghij_abcdefghij_abcdefghij_xyz;
NOTIFY abcdefghij_abcdefghij_abcdefghij_abcdefghij_abcdefghij_abcdefghij_other, 'same 63 bytes';
SELECT * FROM pg_listening_channels();
SELECT pg_notify(repeat('x', 63), 'ok 63');
UNLISTEN *;

-- name: notify_errors
-- @errors
NOTIFY "";
NOTIFY a, 'x' || 'y';
NOTIFY a, 1;
NOTIFY full;
LISTEN;
SELECT pg_notify(NULL, 'x');
SELECT pg_notify('', 'x');
SELECT pg_notify(repeat('x', 64), '');
SELECT pg_notify('a', repeat('x', 8000));
NOTIFY a, 'ok after errors';

-- name: notify_payload_limits
LISTEN big;
SELECT pg_notify('big', repeat('y', 7999)) IS NULL;
SELECT length(repeat('é', 3999));
SELECT pg_notify('big', repeat('é', 3999)) IS NULL;
UNLISTEN big;

-- name: notify_payload_too_long_multibyte
-- @errors
SELECT pg_notify('big', repeat('é', 4000));

-- name: notify_transactional
LISTEN a;
BEGIN;
NOTIFY a, 'in tx';
SELECT 'not yet delivered';
COMMIT;
BEGIN;
NOTIFY a, 'rolled back';
ROLLBACK;
SELECT 'nothing delivered';

-- name: notify_dedup
LISTEN a;
BEGIN;
NOTIFY a, 'x';
NOTIFY a, 'x';
NOTIFY a, 'y';
NOTIFY a;
NOTIFY a, '';
SELECT pg_notify('a', NULL);
NOTIFY a, 'x';
NOTIFY b, 'x';
COMMIT;
NOTIFY a, 'x';
NOTIFY a, 'x';

-- name: notify_dedup_many
LISTEN a;
BEGIN;
SELECT count(pg_notify('a', (x % 20)::text)) FROM generate_series(1, 100) x;
COMMIT;

-- name: notify_multi_statement_is_one_transaction
-- @errors
-- @modes simple
LISTEN a;
NOTIFY a, '1'; NOTIFY a, '1'; NOTIFY a, '2';
NOTIFY a, 'before error'; SELECT 1 / x FROM generate_series(0, 0) x;
NOTIFY a, 'ok';

-- name: notify_savepoints
-- @errors
LISTEN a;
BEGIN;
SAVEPOINT s;
NOTIFY a, '1';
ROLLBACK TO s;
NOTIFY a, '2';
COMMIT;
BEGIN;
NOTIFY a, '1';
SAVEPOINT s;
NOTIFY a, '1';
NOTIFY a, '2';
RELEASE s;
COMMIT;
BEGIN;
SAVEPOINT s1;
NOTIFY a, 'inner';
SAVEPOINT s2;
SELECT 1 / x FROM generate_series(0, 0) x;
ROLLBACK TO s2;
RELEASE s1;
COMMIT;

-- name: notify_listen_semantics
BEGIN;
LISTEN x;
SELECT * FROM pg_listening_channels();
COMMIT;
SELECT * FROM pg_listening_channels();
BEGIN;
LISTEN y;
ROLLBACK;
SELECT * FROM pg_listening_channels();
BEGIN;
LISTEN z;
UNLISTEN z;
COMMIT;
SELECT * FROM pg_listening_channels();
BEGIN;
LISTEN p;
UNLISTEN *;
LISTEN q;
COMMIT;
SELECT * FROM pg_listening_channels() ORDER BY 1;
LISTEN q;
UNLISTEN never_listened;
UNLISTEN *;
SELECT count(*) FROM pg_listening_channels();

-- name: notify_then_listen_same_transaction
BEGIN;
NOTIFY late, 'sent before listen';
LISTEN late;
COMMIT;
UNLISTEN *;

-- name: notify_unlisten_pending_in_transaction
LISTEN a;
BEGIN;
UNLISTEN a;
NOTIFY a, 'after unlisten in same tx';
COMMIT;

-- name: notify_aborted_transaction
-- @errors
LISTEN a;
BEGIN;
NOTIFY a, 'first';
SELECT 1 / x FROM generate_series(0, 0) x;
NOTIFY a, 'second';
COMMIT;
SELECT 'nothing was sent';

-- name: notify_read_only_transaction
LISTEN a;
BEGIN READ ONLY;
NOTIFY a, 'ro';
LISTEN b;
COMMIT;
SELECT * FROM pg_listening_channels() ORDER BY 1;

-- name: notify_discard_all
LISTEN a;
DISCARD ALL;
NOTIFY a, 'not delivered';
SELECT count(*) FROM pg_listening_channels();

-- name: notify_queue_usage
SELECT pg_typeof(pg_notification_queue_usage()), pg_notification_queue_usage() >= 0, pg_notification_queue_usage() < 0.001;

-- name: notify_many_channels_order
LISTEN c1;
LISTEN c2;
LISTEN c3;
BEGIN;
NOTIFY c3, 'a';
NOTIFY c1, 'b';
NOTIFY c2, 'c';
NOTIFY c1, 'd';
NOTIFY nobody, 'e';
COMMIT;
SELECT pg_notify('c' || x, 'v' || x) FROM generate_series(3, 1, -1) x;
