-- Differential SQL cases: advisory locks in one session (PostgreSQL 15's advisory_lock
-- regression file: transaction and session level, counts, unlock warnings, pg_locks' keys).
-- Between sessions: test_advisory_locks.py.

-- name: advisory_regress
BEGIN;
SELECT pg_advisory_xact_lock(1), pg_advisory_xact_lock_shared(2), pg_advisory_xact_lock(1, 1), pg_advisory_xact_lock_shared(2, 2);
SELECT locktype, classid, objid, objsubid, mode, granted FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY classid, objid, objsubid;
SELECT pg_advisory_unlock_all();
SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database());
SELECT pg_advisory_unlock(1), pg_advisory_unlock_shared(2), pg_advisory_unlock(1, 1), pg_advisory_unlock_shared(2, 2);
COMMIT;
SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database());
BEGIN;
SELECT pg_advisory_xact_lock(1), pg_advisory_xact_lock_shared(2), pg_advisory_xact_lock(1, 1), pg_advisory_xact_lock_shared(2, 2);
SELECT pg_advisory_lock(1), pg_advisory_lock_shared(2), pg_advisory_lock(1, 1), pg_advisory_lock_shared(2, 2);
ROLLBACK;
SELECT locktype, classid, objid, objsubid, mode, granted FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY classid, objid, objsubid;
SELECT pg_advisory_unlock(1), pg_advisory_unlock(1), pg_advisory_unlock_shared(2), pg_advisory_unlock_shared(2), pg_advisory_unlock(1, 1), pg_advisory_unlock(1, 1), pg_advisory_unlock_shared(2, 2), pg_advisory_unlock_shared(2, 2);
SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database());
SELECT pg_advisory_lock(1), pg_advisory_lock(1), pg_advisory_lock_shared(2), pg_advisory_lock_shared(2), pg_advisory_lock(1, 1), pg_advisory_lock(1, 1), pg_advisory_lock_shared(2, 2), pg_advisory_lock_shared(2, 2);
SELECT locktype, classid, objid, objsubid, mode, granted FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY classid, objid, objsubid;
SELECT pg_advisory_unlock_all();
SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database());
SELECT pg_try_advisory_lock(-1), pg_try_advisory_xact_lock(5000000000), pg_advisory_lock(NULL), pg_try_advisory_lock(1, NULL);
SELECT classid, objid, objsubid FROM pg_locks WHERE locktype = 'advisory' ORDER BY 1,2;
SELECT pg_advisory_unlock_all();

-- name: advisory_keys_and_nulls
-- @errors
SELECT pg_try_advisory_lock(9223372036854775807), pg_try_advisory_lock(-9223372036854775808);
SELECT pg_try_advisory_lock_shared(-1, -2), pg_advisory_unlock(12345), pg_advisory_unlock_shared(1, 2);
SELECT classid, objid, objsubid, mode FROM pg_locks WHERE locktype = 'advisory' ORDER BY 1, 2, 3;
SELECT pg_advisory_lock(1, 2, 3);
SELECT pg_advisory_xact_unlock(1);
SELECT pg_typeof(pg_advisory_lock(5)), pg_typeof(pg_try_advisory_lock(5)), pg_advisory_unlock(5), pg_advisory_unlock(5), pg_advisory_unlock(5);
SELECT pg_advisory_unlock_all();
SELECT count(*) FROM pg_locks WHERE locktype = 'advisory';
BEGIN;
SELECT pg_advisory_xact_lock(6);
SAVEPOINT s;
SELECT pg_advisory_lock(7);
ROLLBACK TO s;
SELECT objid, mode FROM pg_locks WHERE locktype = 'advisory' ORDER BY 1;
COMMIT;
SELECT objid, mode FROM pg_locks WHERE locktype = 'advisory' ORDER BY 1;
SELECT pg_advisory_unlock_all();
