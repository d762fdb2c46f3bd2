-- Differential SQL cases: CREATE / DROP EXTENSION for the extensions threadgres has built in
-- (uuid-ossp, pgcrypto; plpgsql is always there), their functions' results, pg_extension and
-- pg_depend, and the errors PostgreSQL gives. Random results are compared by shape only.

-- name: ext_uuid_ossp
DROP EXTENSION IF EXISTS "uuid-ossp";
CREATE EXTENSION "uuid-ossp";
SELECT uuid_nil(), uuid_ns_dns(), uuid_ns_url(), uuid_ns_oid(), uuid_ns_x500();
SELECT uuid_generate_v3(uuid_ns_dns(), 'www.example.com'), uuid_generate_v5(uuid_ns_url(), 'https://example.com/x');
SELECT uuid_generate_v3(uuid_ns_oid(), ''), uuid_generate_v5(uuid_ns_x500(), 'CN=x'), uuid_generate_v3(NULL, 'x');
SELECT uuid_generate_v5(namespace => uuid_ns_dns(), name => 'named');
SELECT substr(uuid_generate_v4()::text, 15, 1), substr(uuid_generate_v1()::text, 15, 1), substr(uuid_generate_v1mc()::text, 15, 1);
SELECT uuid_generate_v4() <> uuid_generate_v4(), uuid_generate_v1() <> uuid_generate_v1();
SELECT count(DISTINCT u) FROM (SELECT uuid_generate_v1() AS u FROM generate_series(1, 500)) s;
CREATE TABLE ext_docs (id uuid PRIMARY KEY DEFAULT uuid_generate_v4(), title text);
INSERT INTO ext_docs (title) VALUES ('a'), ('b');
SELECT count(DISTINCT id), count(*) FROM ext_docs;
DROP TABLE ext_docs;
SELECT e.extname, e.extversion, e.extrelocatable, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace ORDER BY 1;
SELECT p.proname, pg_get_function_identity_arguments(p.oid), p.prorettype::regtype, p.provolatile, p.proisstrict, l.lanname FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass JOIN pg_extension e ON e.oid = d.refobjid JOIN pg_language l ON l.oid = p.prolang WHERE d.deptype = 'e' AND e.extname = 'uuid-ossp' ORDER BY 1, 2;
DROP EXTENSION "uuid-ossp";
SELECT count(*) FROM pg_extension WHERE extname = 'uuid-ossp';

-- name: ext_pgcrypto
DROP EXTENSION IF EXISTS pgcrypto;
CREATE EXTENSION pgcrypto;
SELECT digest('abc', 'md5'), digest('abc', 'SHA1'), digest('abc'::bytea, 'sha224');
SELECT encode(digest('abc', 'sha256'), 'hex'), encode(digest('', 'sha384'), 'hex'), encode(digest('x', 'sha512'), 'base64');
SELECT hmac('data', 'key', 'md5'), hmac('data'::bytea, 'key'::bytea, 'sha1'), hmac('data', 'key', 'sha256');
SELECT hmac('data', repeat('k', 200), 'sha512'), hmac('', '', 'sha384');
SELECT crypt('pw', '$2a$06$abcdefghijklmnopqrstuu'), crypt('pw', '$1$saltsalt'), crypt('pw', '$1$');
SELECT crypt('a much longer password than usual', '$1$12345678$ignored'), crypt('', '$2a$04$......................');
SELECT length(gen_random_bytes(16)), length(gen_random_bytes(1024)), gen_random_bytes(8) <> gen_random_bytes(8);
SELECT gen_salt('bf') ~ '^\$2a\$06\$[./A-Za-z0-9]{22}$', gen_salt('BF', 10) ~ '^\$2a\$10\$', gen_salt('md5') ~ '^\$1\$[./0-9A-Za-z]{8}$';
SELECT crypt('secret', s) = crypt('secret', crypt('secret', s)), crypt('wrong', s) = crypt('secret', s) FROM (SELECT gen_salt('bf', 4) AS s) x;
SELECT crypt('secret', s) = crypt('secret', crypt('secret', s)) FROM (SELECT gen_salt('md5') AS s) x;
SELECT substr(gen_random_uuid()::text, 15, 1);
SELECT digest(NULL, 'md5') IS NULL, hmac('x', NULL, 'md5') IS NULL, crypt(NULL, 'x') IS NULL;
DROP EXTENSION pgcrypto;

-- name: ext_errors
-- @errors
DROP EXTENSION IF EXISTS pgcrypto;
CREATE EXTENSION pgcrypto;
CREATE EXTENSION pgcrypto;
CREATE EXTENSION IF NOT EXISTS pgcrypto;
CREATE EXTENSION plpgsql;
CREATE EXTENSION IF NOT EXISTS plpgsql;
SELECT digest('a', 'nope');
SELECT hmac('a', 'b', 'nosuch');
SELECT gen_random_bytes(0);
SELECT gen_random_bytes(1025);
SELECT gen_salt('nope');
SELECT gen_salt('bf', 3);
SELECT gen_salt('bf', 32);
SELECT gen_salt('md5', 5);
SELECT crypt('pw', '$2a$06$abc');
SELECT crypt('pw', '$2a$99$abcdefghijklmnopqrstuu');
DROP FUNCTION digest(text, text);
DROP FUNCTION gen_salt;
DROP EXTENSION pgcrypto;
DROP EXTENSION pgcrypto;
DROP EXTENSION IF EXISTS pgcrypto;
DROP EXTENSION IF EXISTS pgcrypto, "uuid-ossp";
SELECT digest('a', 'md5');
CREATE EXTENSION pgcrypto VERSION '9.9';

-- name: ext_schema_and_transactions
-- @errors
DROP EXTENSION IF EXISTS "uuid-ossp";
DROP SCHEMA IF EXISTS ext_s CASCADE;
CREATE SCHEMA ext_s;
CREATE EXTENSION "uuid-ossp" WITH SCHEMA ext_s;
SELECT uuid_nil();
SELECT ext_s.uuid_nil();
SET search_path = public, ext_s;
SELECT uuid_nil(), uuid_generate_v3(uuid_ns_dns(), 'a');
RESET search_path;
SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'uuid-ossp';
CREATE EXTENSION "uuid-ossp" SCHEMA public;
DROP EXTENSION "uuid-ossp";
CREATE EXTENSION "uuid-ossp" WITH SCHEMA no_such_schema;
BEGIN;
CREATE EXTENSION "uuid-ossp";
SELECT uuid_nil();
ROLLBACK;
SELECT count(*) FROM pg_extension WHERE extname = 'uuid-ossp';
SELECT uuid_nil();
BEGIN;
CREATE EXTENSION "uuid-ossp";
COMMIT;
BEGIN;
DROP EXTENSION "uuid-ossp";
ROLLBACK;
SELECT uuid_nil();
DROP EXTENSION "uuid-ossp";
DROP SCHEMA ext_s;

-- name: ext_psql_catalog
DROP EXTENSION IF EXISTS pgcrypto;
CREATE EXTENSION pgcrypto;
SELECT e.extname AS "Name", e.extversion AS "Version", n.nspname AS "Schema", c.description AS "Description" FROM pg_catalog.pg_extension e LEFT JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace LEFT JOIN pg_catalog.pg_description c ON c.objoid = e.oid AND c.classoid = 'pg_catalog.pg_extension'::pg_catalog.regclass ORDER BY 1;
SELECT p.proname, pg_catalog.pg_function_is_visible(p.oid) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND p.proname IN ('gen_random_uuid', 'digest', 'crypt') ORDER BY 1, 2;
SELECT obj_description(e.oid, 'pg_extension') FROM pg_extension e WHERE extname = 'pgcrypto';
DROP EXTENSION pgcrypto;

-- name: ext_sizes_where_they_agree
-- @errors
DROP TABLE IF EXISTS ext_sz;
DROP VIEW IF EXISTS ext_szv;
CREATE TABLE ext_sz (a int);
CREATE VIEW ext_szv AS SELECT 1;
SELECT pg_relation_size('ext_sz'), pg_table_size('ext_sz'), pg_total_relation_size('ext_sz'), pg_indexes_size('ext_sz'), pg_relation_size('ext_szv'), pg_relation_size(NULL), pg_relation_size('ext_sz', 'vm'), pg_relation_size(0);
SELECT pg_relation_size('ext_sz', 'x');
SELECT pg_relation_size('ext_no_such_table');
SELECT pg_database_size('ext_no_such_database');
DROP TABLE ext_sz;
DROP VIEW ext_szv;

-- name: ext_available
DROP EXTENSION IF EXISTS pgcrypto;
DROP EXTENSION IF EXISTS "uuid-ossp";
CREATE EXTENSION pgcrypto;
SELECT * FROM pg_available_extensions WHERE name IN ('pgcrypto', 'uuid-ossp', 'plpgsql') ORDER BY name;
SELECT * FROM pg_available_extension_versions WHERE name IN ('pgcrypto', 'uuid-ossp', 'plpgsql') ORDER BY name;
SELECT name, installed_version IS NOT NULL FROM pg_available_extensions WHERE name = 'pgcrypto';
DROP EXTENSION pgcrypto;
SELECT name, installed_version FROM pg_available_extensions WHERE name = 'pgcrypto';

-- name: ext_fuzzystrmatch
-- @errors
DROP EXTENSION IF EXISTS fuzzystrmatch;
CREATE EXTENSION fuzzystrmatch;
SELECT levenshtein('kitten', 'sitting'), levenshtein('', 'abc'), levenshtein('abc', ''), levenshtein('', ''), levenshtein('kitten', 'sitting', 2, 3, 4), levenshtein('ñandú', 'nandu');
SELECT levenshtein('GUMBO', 'GAMBOL', 1, 1, 0), levenshtein('abc', 'xyz', 0, 0, 5), levenshtein(repeat('ab', 127), repeat('ba', 127));
SELECT soundex('Robert'), soundex('Rupert'), soundex('Tymczak'), soundex('Pfister'), soundex('Ashcraft'), soundex('Honeyman'), soundex(''), soundex('123'), soundex(' ash'), soundex('a-a'), soundex('ÄRobert');
SELECT text_soundex('Lloyd'), difference('Robert', 'Rupert'), difference('Anne', 'Andrew'), difference('', 'x'), soundex(NULL) IS NULL;
SELECT name, installed_version FROM pg_available_extensions WHERE name = 'fuzzystrmatch';
SELECT levenshtein(repeat('a', 256), 'a');
DROP EXTENSION fuzzystrmatch;
