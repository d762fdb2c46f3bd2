-- Differential SQL cases: roles (issue 18): CREATE / ALTER / DROP ROLE and USER with their
-- options, errors and notices, pg_authid / pg_roles / pg_user / pg_shadow / pg_auth_members
-- rows (stable columns only: OIDs and password salts differ between servers), GRANT / REVOKE
-- role, SET ROLE, SET SESSION AUTHORIZATION, current_user / session_user, pg_has_role, and the
-- permission rules for non-superusers. Roles are prefixed rl_; each case drops what it makes.

-- name: roles_create_options
DROP ROLE IF EXISTS rl_a, rl_u, rl_s;
CREATE ROLE rl_a;
CREATE USER rl_u PASSWORD 'secret' VALID UNTIL '2030-01-01 00:00:00+00' CONNECTION LIMIT 3;
CREATE ROLE rl_s SUPERUSER CREATEDB CREATEROLE REPLICATION BYPASSRLS LOGIN NOINHERIT;
SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolbypassrls, rolconnlimit, rolvaliduntil, rolpassword ~ '^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$' AS scram, rolpassword IS NULL AS nopw FROM pg_authid WHERE rolname LIKE 'rl\_%' ORDER BY rolname;
SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolconnlimit, rolpassword, rolvaliduntil, rolbypassrls, rolconfig FROM pg_roles WHERE rolname LIKE 'rl\_%' ORDER BY rolname;
SELECT usename, usecreatedb, usesuper, userepl, usebypassrls, passwd, valuntil, useconfig FROM pg_user WHERE usename LIKE 'rl\_%' ORDER BY 1;
SELECT usename, passwd ~ '^SCRAM-SHA-256\$' FROM pg_shadow WHERE usename LIKE 'rl\_%' ORDER BY 1;
SELECT groname, grolist FROM pg_group WHERE groname LIKE 'rl\_%' ORDER BY 1;
DROP ROLE rl_a, rl_u, rl_s;

-- name: roles_builtin
SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolbypassrls, rolconnlimit, oid FROM pg_authid WHERE oid < 16384 ORDER BY oid;
SELECT (SELECT rolname FROM pg_roles WHERE oid = roleid)::text AS role, (SELECT rolname FROM pg_roles WHERE oid = member)::text, (SELECT rolname FROM pg_roles WHERE oid = grantor)::text, admin_option FROM pg_auth_members WHERE roleid < 16384 ORDER BY 1;
SELECT pg_get_userbyid(10), pg_get_userbyid(3373), pg_get_userbyid(1);

-- name: roles_create_errors
-- @errors
DROP ROLE IF EXISTS rl_e;
CREATE ROLE rl_e;
CREATE ROLE rl_e;
CREATE USER rl_e;
CREATE ROLE pg_rl;
CREATE ROLE rl_x LOGIN NOLOGIN;
CREATE ROLE rl_x CONNECTION LIMIT -5;
CREATE ROLE rl_x PASSWORD 'a' PASSWORD 'b';
CREATE ROLE rl_x IN ROLE rl_nosuch;
DROP ROLE rl_e;

-- name: roles_sysid_and_empty_password
DROP ROLE IF EXISTS rl_p;
CREATE ROLE rl_p SYSID 5;
ALTER ROLE rl_p PASSWORD '';
SELECT rolname, rolpassword IS NULL FROM pg_authid WHERE rolname = 'rl_p';
DROP ROLE rl_p;

-- name: roles_passwords
DROP ROLE IF EXISTS rl_pw1, rl_pw2, rl_pw3, rl_pw4, rl_pw5;
CREATE ROLE rl_pw1 PASSWORD NULL;
CREATE ROLE rl_pw2 ENCRYPTED PASSWORD 'md5aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
CREATE ROLE rl_pw3 PASSWORD 'SCRAM-SHA-256$4096:c2FsdHNhbHRzYWx0c2FsdA==$c3RvcmVkc3RvcmVkc3RvcmVkc3RvcmVkc3RvcmVkc3Q=:c2VydmVyc2VydmVyc2VydmVyc2VydmVyc2VydmVyc2U=';
SET password_encryption = 'md5';
SHOW password_encryption;
CREATE ROLE rl_pw4 PASSWORD 'abc';
RESET password_encryption;
CREATE ROLE rl_pw5 PASSWORD 'abc';
SELECT rolname, rolpassword ~ '^SCRAM-SHA-256\$4096:' AS scram, CASE WHEN rolpassword ~ '^SCRAM' THEN NULL ELSE rolpassword END FROM pg_authid WHERE rolname LIKE 'rl\_pw%' ORDER BY 1;
ALTER ROLE rl_pw4 RENAME TO rl_pw4b;
ALTER ROLE rl_pw5 RENAME TO rl_pw5b;
SELECT rolname, rolpassword IS NULL FROM pg_authid WHERE rolname LIKE 'rl\_pw%' ORDER BY 1;
DROP ROLE rl_pw1, rl_pw2, rl_pw3, rl_pw4b, rl_pw5b;

-- name: roles_password_encryption_invalid
-- @errors
SET password_encryption = 'plain';

-- name: roles_alter
DROP ROLE IF EXISTS rl_al;
CREATE ROLE rl_al;
ALTER ROLE rl_al LOGIN CREATEDB CONNECTION LIMIT 7 VALID UNTIL 'infinity';
ALTER USER rl_al NOINHERIT NOCREATEDB;
SELECT rolname, rolinherit, rolcreatedb, rolcanlogin, rolconnlimit, rolvaliduntil FROM pg_roles WHERE rolname = 'rl_al';
ALTER ROLE rl_al SET work_mem = '2MB';
ALTER ROLE rl_al SET search_path TO a, b;
SELECT rolconfig FROM pg_roles WHERE rolname = 'rl_al';
SELECT s.setdatabase, s.setconfig FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole WHERE r.rolname = 'rl_al';
ALTER ROLE rl_al RESET work_mem;
SELECT rolconfig FROM pg_roles WHERE rolname = 'rl_al';
ALTER ROLE rl_al RESET ALL;
SELECT rolconfig FROM pg_roles WHERE rolname = 'rl_al';
ALTER ROLE rl_al RENAME TO rl_al2;
SELECT rolname FROM pg_roles WHERE rolname LIKE 'rl\_al%';
DROP ROLE rl_al2;

-- name: roles_alter_errors
-- @errors
DROP ROLE IF EXISTS rl_ae, rl_ae2;
CREATE ROLE rl_ae;
CREATE ROLE rl_ae2;
ALTER ROLE rl_nosuch LOGIN;
ALTER ROLE pg_monitor LOGIN;
ALTER ROLE rl_ae SET nosuch_setting = 1;
ALTER ROLE rl_ae SET work_mem = 'zz';
ALTER ROLE rl_ae RENAME TO rl_ae2;
ALTER ROLE rl_ae RENAME TO pg_rl;
ALTER ROLE pg_monitor RENAME TO rl_x;
ALTER ROLE rl_nosuch RENAME TO rl_x;
ALTER ROLE postgres RENAME TO rl_x;
ALTER ROLE rl_ae VALID UNTIL 'garbage';
ALTER ROLE rl_ae CONNECTION LIMIT -2;
DROP ROLE rl_ae, rl_ae2;

-- name: roles_drop
-- @errors
DROP ROLE IF EXISTS rl_d1, rl_d2;
CREATE ROLE rl_d1;
DROP ROLE rl_nosuch;
DROP ROLE IF EXISTS rl_nosuch, rl_d1;
DROP ROLE postgres;
DROP ROLE pg_monitor;
DROP ROLE CURRENT_USER;
DROP ROLE rl_d1;

-- name: roles_drop_owner
-- @errors
DROP SCHEMA IF EXISTS rl_sch;
DROP ROLE IF EXISTS rl_own;
CREATE ROLE rl_own;
CREATE SCHEMA rl_sch AUTHORIZATION rl_own;
SELECT nspname, pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'rl_sch';
DROP ROLE rl_own;
CREATE SCHEMA AUTHORIZATION rl_nosuch;
SET ROLE rl_own;
SELECT current_user;
RESET ROLE;
DROP SCHEMA rl_sch;
DROP ROLE rl_own;

-- name: roles_grant_revoke
-- @errors
DROP ROLE IF EXISTS rl_g1, rl_g2, rl_g3;
CREATE ROLE rl_g1;
CREATE ROLE rl_g2 IN ROLE rl_g1;
CREATE ROLE rl_g3 ROLE rl_g2 ADMIN rl_g1;
SELECT (SELECT rolname FROM pg_roles WHERE oid = roleid)::text, (SELECT rolname FROM pg_roles WHERE oid = member)::text, (SELECT rolname FROM pg_roles WHERE oid = grantor)::text, admin_option FROM pg_auth_members WHERE (SELECT rolname FROM pg_roles WHERE oid = roleid)::text LIKE 'rl\_%' ORDER BY 1, 2;
GRANT rl_g1 TO rl_g3;
GRANT rl_g2 TO rl_g2;
GRANT rl_g1 TO rl_g2;
GRANT rl_g1 TO rl_g2 WITH ADMIN OPTION;
GRANT rl_nosuch TO rl_g2;
GRANT rl_g1 TO rl_nosuch;
GRANT pg_database_owner TO rl_g1;
SELECT (SELECT rolname FROM pg_roles WHERE oid = roleid)::text, (SELECT rolname FROM pg_roles WHERE oid = member)::text, admin_option FROM pg_auth_members WHERE (SELECT rolname FROM pg_roles WHERE oid = roleid)::text LIKE 'rl\_%' ORDER BY 1, 2;
REVOKE ADMIN OPTION FOR rl_g1 FROM rl_g2;
REVOKE rl_g3 FROM rl_g2;
REVOKE rl_g3 FROM rl_g2;
SELECT (SELECT rolname FROM pg_roles WHERE oid = roleid)::text, (SELECT rolname FROM pg_roles WHERE oid = member)::text, admin_option FROM pg_auth_members WHERE (SELECT rolname FROM pg_roles WHERE oid = roleid)::text LIKE 'rl\_%' ORDER BY 1, 2;
SELECT pg_has_role('rl_g2', 'rl_g1', 'MEMBER'), pg_has_role('rl_g2', 'rl_g1', 'USAGE'), pg_has_role('rl_g1', 'rl_g2', 'MEMBER'), pg_has_role('rl_g2', 'rl_g2', 'USAGE');
SELECT pg_has_role('rl_nosuch', 'rl_g1', 'MEMBER');
DROP ROLE rl_g1;
SELECT (SELECT rolname FROM pg_roles WHERE oid = roleid)::text, (SELECT rolname FROM pg_roles WHERE oid = member)::text FROM pg_auth_members WHERE (SELECT rolname FROM pg_roles WHERE oid = roleid)::text LIKE 'rl\_%' ORDER BY 1, 2;
DROP ROLE rl_g2, rl_g3;

-- name: roles_set_role
-- @errors
DROP ROLE IF EXISTS rl_r1, rl_r2;
CREATE ROLE rl_r1 LOGIN;
CREATE ROLE rl_r2;
GRANT rl_r2 TO rl_r1;
SELECT current_user, session_user, current_role, user;
SHOW role;
SHOW is_superuser;
SET ROLE rl_r2;
SELECT current_user, session_user, current_role, user;
SHOW role;
SHOW is_superuser;
SHOW session_authorization;
SET ROLE rl_r1;
SET ROLE NONE;
SHOW role;
SET ROLE rl_nosuch;
SET SESSION AUTHORIZATION rl_r1;
SELECT current_user, session_user;
SHOW session_authorization;
SHOW is_superuser;
SET ROLE rl_r2;
SELECT current_user, session_user;
SET ROLE postgres;
RESET SESSION AUTHORIZATION;
SELECT current_user, session_user;
SHOW role;
SET SESSION AUTHORIZATION rl_nosuch;
DROP ROLE rl_r1, rl_r2;

-- name: roles_set_role_transactions
DROP ROLE IF EXISTS rl_t1;
CREATE ROLE rl_t1;
BEGIN;
SET LOCAL ROLE rl_t1;
SELECT current_user;
COMMIT;
SELECT current_user;
BEGIN;
SET ROLE rl_t1;
ROLLBACK;
SELECT current_user;
SET ROLE rl_t1;
RESET ALL;
SHOW role;
SELECT current_user;
RESET ROLE;
SELECT set_config('role', 'rl_t1', false), current_user;
RESET ROLE;
SELECT current_user;
DROP ROLE rl_t1;

-- name: roles_ddl_is_transactional
DROP ROLE IF EXISTS rl_x1, rl_x2;
BEGIN;
CREATE ROLE rl_x1;
SELECT count(*) FROM pg_roles WHERE rolname = 'rl_x1';
ROLLBACK;
SELECT count(*) FROM pg_roles WHERE rolname = 'rl_x1';
CREATE ROLE rl_x2;
BEGIN;
DROP ROLE rl_x2;
SELECT count(*) FROM pg_roles WHERE rolname = 'rl_x2';
ROLLBACK;
SELECT count(*) FROM pg_roles WHERE rolname = 'rl_x2';
BEGIN;
ALTER ROLE rl_x2 RENAME TO rl_x3;
ROLLBACK;
SELECT rolname FROM pg_roles WHERE rolname LIKE 'rl\_x%';
DROP ROLE rl_x2;

-- name: roles_createrole_rules
-- @errors
DROP ROLE IF EXISTS rl_cr, rl_plain, rl_victim, rl_su, rl_rep, rl_made;
CREATE ROLE rl_cr CREATEROLE;
CREATE ROLE rl_plain;
CREATE ROLE rl_victim;
CREATE ROLE rl_su SUPERUSER;
CREATE ROLE rl_rep REPLICATION;
SET ROLE rl_cr;
SHOW is_superuser;
CREATE ROLE rl_x SUPERUSER;
CREATE ROLE rl_x REPLICATION;
CREATE ROLE rl_x BYPASSRLS;
CREATE ROLE rl_made LOGIN CREATEDB;
ALTER ROLE rl_su NOSUPERUSER;
ALTER ROLE rl_victim SUPERUSER;
ALTER ROLE rl_rep NOREPLICATION;
ALTER ROLE rl_victim BYPASSRLS;
ALTER ROLE rl_victim CREATEDB;
ALTER ROLE rl_su RENAME TO rl_x;
DROP ROLE rl_su;
GRANT rl_su TO rl_made;
GRANT rl_made TO rl_victim;
SELECT * FROM pg_authid;
SELECT count(*) FROM pg_shadow;
SELECT count(*) > 0 FROM pg_roles;
SET ROLE rl_plain;
CREATE ROLE rl_x;
ALTER ROLE rl_plain PASSWORD 'abc';
ALTER ROLE rl_plain CREATEDB;
ALTER ROLE rl_made PASSWORD 'abc';
ALTER ROLE rl_made SET work_mem = '1MB';
ALTER ROLE rl_plain SET work_mem = '1MB';
DROP ROLE rl_made;
GRANT rl_made TO rl_plain;
RESET ROLE;
DROP ROLE rl_cr, rl_plain, rl_victim, rl_su, rl_rep, rl_made;
