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

-- name: ext_pg_trgm
DROP EXTENSION IF EXISTS pg_trgm;
CREATE EXTENSION pg_trgm;
SELECT show_trgm('Hello, World!'), show_trgm(''), show_trgm('a'), show_trgm('  !! '), show_trgm('x1 Y2z'), show_trgm('a-b_c d');
SELECT show_trgm('ñandú'), show_trgm('Straße 日本語'), show_trgm('ÄÖÜ abc'), show_trgm('İx');
SELECT similarity('word', 'two words'), similarity('', ''), similarity('abc', 'abc'), similarity('Hello', 'hallo'), similarity('ñandú', 'nandu'), similarity(NULL, 'a') IS NULL;
SELECT word_similarity('word', 'two words'), word_similarity('two words', 'word'), strict_word_similarity('word', 'two words'), strict_word_similarity('alex', 'alexandra bayo'), word_similarity('alex', 'alexandra bayo');
SELECT word_similarity('', 'abc'), word_similarity('abc', ''), strict_word_similarity('', ''), word_similarity('kabc abcd', 'xyz abc ab abcd'), strict_word_similarity('kabc abcd', 'xyz abc ab abcd');
SELECT 'word' % 'two words', 'word' <% 'two words', 'two words' %> 'word', 'word' <<% 'two words', 'two words' %>> 'word', 7 % 3;
SELECT 'word' <-> 'two words', 'word' <<-> 'two words', 'two words' <->> 'word', 'word' <<<-> 'two words', 'two words' <->>> 'word';
SELECT 'abc'::varchar % 'abd'::varchar, 'abc'::text <-> 'abc', NULL::text % 'a';
SELECT show_limit(), current_setting('pg_trgm.similarity_threshold');
SHOW pg_trgm.word_similarity_threshold;
SHOW pg_trgm.strict_word_similarity_threshold;
SELECT set_limit(0.5), show_limit();
SHOW pg_trgm.similarity_threshold;
SELECT 'word' % 'two words';
SET pg_trgm.similarity_threshold = 0.1;
SELECT 'word' % 'two words', show_limit();
SET pg_trgm.word_similarity_threshold TO 0.123456789;
SHOW pg_trgm.word_similarity_threshold;
SELECT 'xyz' <% 'two words', 'wo' <% 'two words';
RESET pg_trgm.similarity_threshold;
RESET pg_trgm.word_similarity_threshold;
SHOW pg_trgm.similarity_threshold;
BEGIN;
SET LOCAL pg_trgm.strict_word_similarity_threshold = 0.9;
SELECT 'alex' <<% 'alexandra bayo';
ROLLBACK;
SELECT 'alex' <<% 'alexandra bayo';
CREATE TABLE trgm_t (id int, t text);
INSERT INTO trgm_t VALUES (1, 'PostgreSQL'), (2, 'threadgres'), (3, 'postgres'), (4, 'progress'), (5, NULL), (6, 'Postgres database');
SELECT id, t, similarity(t, 'postgre') AS s FROM trgm_t WHERE t % 'postgre' ORDER BY s DESC, id;
SELECT id, t <-> 'postgres' AS d FROM trgm_t ORDER BY d, id;
SELECT id FROM trgm_t WHERE 'gres' <% t ORDER BY id;
SELECT t, word_similarity('gres', t), strict_word_similarity('gres', t) FROM trgm_t ORDER BY 2 DESC, 1;
CREATE INDEX trgm_t_t ON trgm_t (t);
SELECT id FROM trgm_t WHERE t = 'postgres';
DROP TABLE trgm_t;
DROP EXTENSION pg_trgm;

-- name: ext_pg_trgm_errors
-- @errors
DROP EXTENSION IF EXISTS pg_trgm;
SELECT similarity('a', 'b');
SELECT 'a'::text % 'b'::text;
CREATE EXTENSION pg_trgm;
SELECT name, default_version, installed_version, comment FROM pg_available_extensions WHERE name = 'pg_trgm';
SET pg_trgm.similarity_threshold = 2;
SET pg_trgm.similarity_threshold = -0.5;
SET pg_trgm.word_similarity_threshold = 'abc';
SELECT set_limit(1.5);
SELECT show_limit();
SELECT 1 % 'a'::text;
SELECT p.proname, pg_get_function_identity_arguments(p.oid), p.prorettype::regtype, p.provolatile, p.proisstrict FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass JOIN pg_extension e ON e.oid = d.refobjid WHERE d.deptype = 'e' AND e.extname = 'pg_trgm' AND p.proname IN ('similarity', 'show_trgm', 'set_limit', 'show_limit', 'word_similarity', 'strict_word_similarity') ORDER BY 1, 2;
DROP EXTENSION pg_trgm;
SELECT 'a'::text % 'b'::text;

-- name: ext_hstore
-- @modes simple,extended
DROP TABLE IF EXISTS hs_t;
DROP EXTENSION IF EXISTS hstore;
CREATE EXTENSION hstore;
SELECT 'a=>1, b=>NULL, "c d"=>"x\"y", aa=>2, a=>3'::hstore, ''::hstore, '  '::hstore, 'k=>"NULL"'::hstore, 'a=>1,'::hstore;
SELECT '"\\"=>"\""'::hstore, 'x\=>y=>z'::hstore, 'null=>NULL'::hstore, 'a => b , c=>d'::hstore, 'ü=>ñ, "日本"=>語'::hstore;
SELECT h -> 'a', h -> 'z', h -> ARRAY['a','b','zz'], h ? 'b', h ? 'z', h ?| ARRAY['z','a'], h ?& ARRAY['a','b'], h ?& ARRAY['a','z'] FROM (SELECT 'a=>1, b=>NULL, c=>3'::hstore AS h) s;
SELECT 'a=>1, b=>2'::hstore @> 'a=>1', 'a=>1, b=>2'::hstore @> 'a=>2', 'a=>1'::hstore <@ 'a=>1, b=>2', 'b=>NULL'::hstore <@ 'a=>1, b=>NULL', 'b=>NULL'::hstore <@ 'b=>1';
SELECT 'a=>1, b=>2'::hstore || 'b=>3, c=>4', 'a=>1'::hstore || ''::hstore;
SELECT 'a=>1, b=>2, c=>3'::hstore - 'b'::text, 'a=>1, b=>2, c=>3'::hstore - 'b=>2', 'a=>1, b=>2, c=>3'::hstore - ARRAY['a','c','x'], 'a=>1, b=>2, c=>3'::hstore - 'a=>1, b=>5'::hstore;
SELECT hstore('a', 'b'), hstore('a', NULL), hstore(NULL, 'b') IS NULL, tconvert('k', 'v'), hstore(ARRAY['a','b','a'], ARRAY['1','2','3']), hstore(ARRAY['a','b'], NULL), hstore(ARRAY['a','1','b','2']), hstore(ARRAY[['a','1'],['b','2']]), hstore('{}'::text[]);
SELECT akeys('b=>1, a=>2, cc=>NULL'), avals('b=>1, a=>2, cc=>NULL'), hstore_to_array('a=>1, b=>NULL'), hstore_to_matrix('a=>1, b=>NULL'), hstore_to_matrix(''), akeys('');
SELECT exist('a=>1', 'a'), defined('a=>NULL', 'a'), defined('a=>1', 'a'), delete('a=>1, b=>2', 'a'), delete('a=>1, b=>2', ARRAY['a','b']), delete('a=>1, b=>2', 'b=>2'::hstore), slice('a=>1, b=>2, c=>3', ARRAY['c','a','x']), fetchval('a=>1', 'a'), isexists('a=>1','b'), isdefined('a=>1','a');
SELECT hstore_to_json('a=>1, b=>NULL, "q\"x"=>"\\"'), hstore_to_jsonb('b=>1, a=>NULL, aaa=>x'), ('a=>1'::hstore)::json, ('a=>1, b=>"t"'::hstore)::jsonb, ('a=>1'::hstore)::text;
SELECT hstore_to_json_loose('"a key" =>1, b => t, c => null, d=> 12345, e => 012345, f=> 1.234, g=> 2.345e+4, h=>-0.5e-3, i=>1., j=>"-", k=>"true"'), hstore_to_jsonb_loose('a=>1, b=>f, c=>0');
SELECT json_agg(q) FROM (VALUES (1, 'a=>1, b=>NULL'::hstore)) q(i, h);
SELECT to_json('k=>v'::hstore), to_jsonb('b=>1, a=>2'::hstore), to_json(NULL::hstore);
SELECT %% 'aa=>1, cq=>l, b=>g, fg=>NULL', %# 'a=>1'::hstore, %# ''::hstore, %% NULL::hstore;
SELECT 'a=>1'::hstore = 'a=>1', 'a=>1, b=>2'::hstore = 'b=>2, a=>1', 'a=>1'::hstore <> 'a=>2', 'a=>1'::hstore #<# 'a=>2', 'a=>1'::hstore #># ''::hstore, 'a=>1'::hstore #<=# 'a=>1', hstore_cmp('a=>1', 'b=>1'), hstore_eq('a=>1', 'a=>1'), 'ab=>1'::hstore #># 'b=>12';
CREATE TABLE hs_t (id int, h hstore);
INSERT INTO hs_t VALUES (1, 'a=>1, b=>2'), (2, 'b=>2, a=>1'), (3, 'a=>NULL'), (4, NULL), (5, ''), (6, 'x=>"long value", y=>z');
SELECT id, h, h -> 'a' FROM hs_t ORDER BY id;
SELECT h::text, count(*) FROM hs_t GROUP BY h ORDER BY 2 DESC, 1;
SELECT count(DISTINCT h), count(h) FROM hs_t;
SELECT id FROM hs_t WHERE h @> 'a=>1' ORDER BY id;
SELECT id FROM hs_t WHERE h ? 'a' ORDER BY id;
SELECT id FROM hs_t WHERE h = 'b=>2, a=>1' ORDER BY id;
SELECT id FROM hs_t WHERE h IN ('a=>NULL', 'y=>z, x=>"long value"') ORDER BY id;
UPDATE hs_t SET h = h || 'c=>3' WHERE id = 1;
UPDATE hs_t SET h = delete(h, 'a') WHERE id = 3;
SELECT id, h FROM hs_t WHERE id IN (1, 3) ORDER BY id;
SELECT pg_typeof(h), pg_typeof(h -> 'a'), pg_typeof(h || h), pg_typeof(akeys(h)) FROM hs_t WHERE id = 1;
SELECT t.typname, t.typtype, t.typcategory, t.typlen, n.nspname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.typname IN ('hstore', '_hstore') ORDER BY 1;
SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'hs_t'::regclass AND attname = 'h';
SELECT ARRAY['a=>1'::hstore, 'b=>2'], (ARRAY['a=>1'::hstore])[1] -> 'a';
DROP TABLE hs_t;
DROP EXTENSION hstore;
SELECT count(*) FROM pg_type WHERE typname = 'hstore';

-- name: ext_hstore_binary
DROP TABLE IF EXISTS hs_b;
DROP EXTENSION IF EXISTS hstore;
CREATE EXTENSION hstore;
CREATE TABLE hs_b (id int, h hstore);
INSERT INTO hs_b VALUES (1, 'a=>1, b=>NULL, "c d"=>"x\"y"'), (2, ''), (3, NULL), (4, 'ü=>ñ');
SELECT id, h, h -> 'a', akeys(h), hstore_to_jsonb(h) FROM hs_b ORDER BY id;
SELECT h || 'z=>26', h - 'a'::text, h ? 'b' FROM hs_b WHERE id = 1;
DROP TABLE hs_b;
DROP EXTENSION hstore;

-- name: ext_hstore_errors
-- @errors
DROP TABLE IF EXISTS hs_e;
DROP TYPE IF EXISTS hstore;
DROP EXTENSION IF EXISTS hstore;
SELECT 'a=>1'::hstore;
CREATE EXTENSION hstore;
DROP TYPE hstore;
SELECT 'a=>1,b'::hstore;
SELECT 'a=>1,b=>'::hstore;
SELECT 'a=>"x'::hstore;
SELECT 'a=>1 x'::hstore;
SELECT 'a=1'::hstore;
SELECT '=>1'::hstore;
SELECT 'a=>1'::hstore -> 1;
SELECT 'a=>1'::hstore - 'b';
SELECT hstore('{a,b,c}'::text[]);
SELECT hstore('{{a,b,c}}'::text[]);
SELECT hstore('{NULL,b}'::text[]);
SELECT hstore('{a,b}'::text[], '{1}'::text[]);
SELECT hstore('{a,NULL}'::text[], '{1,2}'::text[]), '{a}'::text[]::hstore;
CREATE TABLE hs_e (h hstore);
INSERT INTO hs_e VALUES ('a=>1 b');
DROP EXTENSION hstore;
DROP TABLE hs_e;
DROP EXTENSION hstore;
CREATE TYPE hstore AS ENUM ('x');
CREATE EXTENSION hstore;
DROP TYPE hstore;
SELECT 'a=>1'::hstore;
