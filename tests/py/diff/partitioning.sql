-- Differential SQL cases: declarative partitioning. CREATE TABLE ... PARTITION BY RANGE /
-- LIST / HASH and ... PARTITION OF (bounds, defaults, multi-level), the bound and overlap
-- errors, routing of INSERT and COPY rows into leaves (and the 23514 errors), reading the
-- parent (Append, pruning shown by EXPLAIN), DROP and TRUNCATE of the parent, keys cascaded
-- to partitions, and the catalogs psql reads (pg_class, pg_inherits, pg_partitioned_table,
-- pg_get_expr(relpartbound), pg_get_partkeydef). Objects are named pt_...; no case shows an
-- OID.

-- name: pt_range_basic
DROP TABLE IF EXISTS pt_m CASCADE;
CREATE TABLE pt_m (id int, logdate date NOT NULL, peak int) PARTITION BY RANGE (logdate);
CREATE TABLE pt_m_2020 PARTITION OF pt_m FOR VALUES FROM ('2020-01-01') TO ('2021-01-01');
CREATE TABLE pt_m_2021 PARTITION OF pt_m FOR VALUES FROM ('2021-01-01') TO ('2022-01-01');
INSERT INTO pt_m VALUES (1, '2020-03-04', 10), (2, '2021-05-06', 20), (3, '2020-12-31', 30);
SELECT * FROM pt_m ORDER BY id;
SELECT * FROM pt_m_2020 ORDER BY id;
SELECT * FROM pt_m_2021 ORDER BY id;
SELECT count(*) FROM pt_m WHERE logdate >= '2021-01-01';
SELECT relname, relkind, relispartition FROM pg_class WHERE relname LIKE 'pt_m%' ORDER BY 1;
SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_class c WHERE c.relname LIKE 'pt_m_%' ORDER BY 1;
SELECT pg_get_partkeydef('pt_m'::regclass);
SELECT partstrat, partnatts, partattrs FROM pg_partitioned_table WHERE partrelid = 'pt_m'::regclass;
SELECT inhrelid::regclass::text, inhparent::regclass::text, inhseqno FROM pg_inherits WHERE inhparent = 'pt_m'::regclass ORDER BY 1;
DROP TABLE pt_m;
SELECT count(*) FROM pg_class WHERE relname LIKE 'pt_m%';

-- name: pt_range_errors
-- @errors
DROP TABLE IF EXISTS pt_r CASCADE;
CREATE TABLE pt_r (a int, b text) PARTITION BY RANGE (a);
CREATE TABLE pt_r1 PARTITION OF pt_r FOR VALUES FROM (1) TO (10);
CREATE TABLE pt_r2 PARTITION OF pt_r FOR VALUES FROM (5) TO (15);
CREATE TABLE pt_r3 PARTITION OF pt_r FOR VALUES FROM (0) TO (2);
CREATE TABLE pt_r4 PARTITION OF pt_r FOR VALUES FROM (20) TO (20);
CREATE TABLE pt_r5 PARTITION OF pt_r FOR VALUES FROM (30) TO (25);
CREATE TABLE pt_r6 PARTITION OF pt_r FOR VALUES IN (1);
CREATE TABLE pt_r9 PARTITION OF pt_r FOR VALUES FROM (NULL) TO (40);
CREATE TABLE pt_r10 PARTITION OF pt_r FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE pt_r11 PARTITION OF pt_r FOR VALUES FROM (MINVALUE) TO (1);
CREATE TABLE pt_r12 PARTITION OF pt_r FOR VALUES FROM (10) TO (MAXVALUE);
CREATE TABLE pt_r13 PARTITION OF pt_r FOR VALUES FROM (100) TO (200);
INSERT INTO pt_r VALUES (-5, 'neg'), (3, 'three'), (12, 'twelve');
SELECT * FROM pt_r ORDER BY a;
INSERT INTO pt_r VALUES (NULL, 'null');
INSERT INTO pt_r1 VALUES (50, 'wrong');
CREATE TABLE pt_plain (a int);
CREATE TABLE pt_r14 PARTITION OF pt_plain FOR VALUES FROM (1) TO (2);
DROP TABLE pt_plain;
DROP TABLE pt_r;

-- name: pt_key_errors
-- @errors
DROP TABLE IF EXISTS pt_k CASCADE;
CREATE TABLE pt_k (a int, b int) PARTITION BY RANGE (c);
CREATE TABLE pt_k (a int, b int, PRIMARY KEY (b)) PARTITION BY RANGE (a);
CREATE TABLE pt_k (a int, b int, UNIQUE (a, b)) PARTITION BY RANGE (a);
SELECT pg_get_partkeydef('pt_k'::regclass);
DROP TABLE pt_k;
CREATE TABLE pt_k2 (a int, b int) PARTITION BY LIST (a, b);

-- name: pt_list
-- @errors
DROP TABLE IF EXISTS pt_l CASCADE;
CREATE TABLE pt_l (city text, n int) PARTITION BY LIST (city);
CREATE TABLE pt_l_east PARTITION OF pt_l FOR VALUES IN ('boston', 'nyc');
CREATE TABLE pt_l_west PARTITION OF pt_l FOR VALUES IN ('sf', 'la', 'sf');
CREATE TABLE pt_l_null PARTITION OF pt_l FOR VALUES IN (NULL);
CREATE TABLE pt_l_bad PARTITION OF pt_l FOR VALUES IN ('nyc', 'austin');
INSERT INTO pt_l VALUES ('boston', 1), ('sf', 2), (NULL, 3), ('la', 4);
INSERT INTO pt_l VALUES ('austin', 5);
CREATE TABLE pt_l_other PARTITION OF pt_l DEFAULT;
CREATE TABLE pt_l_other2 PARTITION OF pt_l DEFAULT;
INSERT INTO pt_l VALUES ('austin', 5), ('denver', 6);
SELECT * FROM pt_l ORDER BY n;
SELECT * FROM pt_l_other ORDER BY n;
CREATE TABLE pt_l_co PARTITION OF pt_l FOR VALUES IN ('boulder');
SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_class c WHERE c.relname LIKE 'pt_l_%' ORDER BY 1;
SELECT pg_get_partkeydef('pt_l'::regclass);
SELECT (SELECT relname FROM pg_class WHERE oid = partdefid) FROM pg_partitioned_table WHERE partrelid = 'pt_l'::regclass;
INSERT INTO pt_l_east VALUES ('sf', 9);
DROP TABLE pt_l;

-- name: pt_hash
-- @errors
DROP TABLE IF EXISTS pt_h CASCADE;
CREATE TABLE pt_h (id int, v text) PARTITION BY HASH (id);
CREATE TABLE pt_h0 PARTITION OF pt_h FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE pt_h1 PARTITION OF pt_h FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE pt_h2 PARTITION OF pt_h FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE pt_h3 PARTITION OF pt_h FOR VALUES WITH (MODULUS 4, REMAINDER 3);
CREATE TABLE pt_h4 PARTITION OF pt_h FOR VALUES WITH (MODULUS 4, REMAINDER 4);
CREATE TABLE pt_h5 PARTITION OF pt_h FOR VALUES WITH (MODULUS 0, REMAINDER 0);
CREATE TABLE pt_h6 PARTITION OF pt_h FOR VALUES WITH (MODULUS 8, REMAINDER 1);
CREATE TABLE pt_h7 PARTITION OF pt_h DEFAULT;
CREATE TABLE pt_h8 PARTITION OF pt_h FOR VALUES IN (1);
INSERT INTO pt_h SELECT g, 'v' || g FROM generate_series(1, 40) g;
SELECT count(*) FROM pt_h;
SELECT count(*) FROM pt_h0;
SELECT count(*) FROM pt_h1;
SELECT count(*) FROM pt_h2;
SELECT count(*) FROM pt_h3;
SELECT array_agg(id ORDER BY id) FROM pt_h1;
SELECT pg_get_partkeydef('pt_h'::regclass);
SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_class c WHERE c.relname LIKE 'pt_h_' ORDER BY 1;
DROP TABLE pt_h;

-- name: pt_hash_text
DROP TABLE IF EXISTS pt_ht CASCADE;
CREATE TABLE pt_ht (k text, d date, b bigint) PARTITION BY HASH (k, d, b);
CREATE TABLE pt_ht0 PARTITION OF pt_ht FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE pt_ht1 PARTITION OF pt_ht FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE pt_ht2 PARTITION OF pt_ht FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO pt_ht SELECT 'key' || g, date '2020-01-01' + g, g::bigint * 1000000007 FROM generate_series(1, 30) g;
INSERT INTO pt_ht VALUES (NULL, NULL, NULL), ('a much longer key than twelve bytes', NULL, -5);
SELECT array_agg(k ORDER BY k) FROM pt_ht0;
SELECT array_agg(k ORDER BY k) FROM pt_ht1;
SELECT array_agg(k ORDER BY k) FROM pt_ht2;
DROP TABLE pt_ht;

-- name: pt_multilevel
DROP TABLE IF EXISTS pt_ml CASCADE;
CREATE TABLE pt_ml (region text, ts date, amount int) PARTITION BY LIST (region);
CREATE TABLE pt_ml_eu PARTITION OF pt_ml FOR VALUES IN ('eu') PARTITION BY RANGE (ts);
CREATE TABLE pt_ml_eu_2020 PARTITION OF pt_ml_eu FOR VALUES FROM ('2020-01-01') TO ('2021-01-01');
CREATE TABLE pt_ml_eu_rest PARTITION OF pt_ml_eu DEFAULT;
CREATE TABLE pt_ml_us PARTITION OF pt_ml FOR VALUES IN ('us');
INSERT INTO pt_ml VALUES ('eu', '2020-06-01', 1), ('eu', '2023-01-01', 2), ('us', '2020-01-01', 3);
SELECT * FROM pt_ml ORDER BY amount;
SELECT * FROM pt_ml_eu ORDER BY amount;
SELECT * FROM pt_ml_eu_rest;
SELECT relname, relkind, relispartition FROM pg_class WHERE relname LIKE 'pt_ml%' ORDER BY 1;
SELECT inhrelid::regclass::text, inhparent::regclass::text FROM pg_inherits WHERE inhrelid::regclass::text LIKE 'pt_ml%' ORDER BY 1;
TRUNCATE pt_ml;
SELECT count(*) FROM pt_ml;
INSERT INTO pt_ml VALUES ('us', '2020-01-01', 4);
SELECT * FROM pt_ml;
DROP TABLE pt_ml;
SELECT count(*) FROM pg_class WHERE relname LIKE 'pt_ml%';

-- name: pt_explain_pruning
DROP TABLE IF EXISTS pt_e CASCADE;
CREATE TABLE pt_e (a int, b text) PARTITION BY RANGE (a);
CREATE TABLE pt_e1 PARTITION OF pt_e FOR VALUES FROM (0) TO (10);
CREATE TABLE pt_e2 PARTITION OF pt_e FOR VALUES FROM (10) TO (20);
CREATE TABLE pt_e3 PARTITION OF pt_e FOR VALUES FROM (20) TO (30);
EXPLAIN (COSTS OFF) SELECT * FROM pt_e;
EXPLAIN (COSTS OFF) SELECT * FROM pt_e WHERE a = 15;
EXPLAIN (COSTS OFF) SELECT * FROM pt_e WHERE a < 15;
EXPLAIN (COSTS OFF) SELECT * FROM pt_e WHERE a > 12;
EXPLAIN (COSTS OFF) SELECT * FROM pt_e WHERE a BETWEEN 5 AND 12;
EXPLAIN (COSTS OFF) SELECT * FROM pt_e WHERE a IN (1, 25);
EXPLAIN (COSTS OFF) SELECT * FROM pt_e x WHERE x.a = 3;
EXPLAIN (COSTS OFF) SELECT * FROM pt_e WHERE b = 'z';
INSERT INTO pt_e SELECT g, 'r' || g FROM generate_series(0, 29) g;
SELECT * FROM pt_e WHERE a BETWEEN 8 AND 11 ORDER BY a;
SELECT * FROM pt_e WHERE a IN (1, 25) ORDER BY a;
SELECT count(*), min(a), max(a) FROM pt_e WHERE a >= 19;
DROP TABLE pt_e;

-- name: pt_list_explain
DROP TABLE IF EXISTS pt_le CASCADE;
CREATE TABLE pt_le (c text, n int) PARTITION BY LIST (c);
CREATE TABLE pt_le_ab PARTITION OF pt_le FOR VALUES IN ('a', 'b');
CREATE TABLE pt_le_c PARTITION OF pt_le FOR VALUES IN ('c');
CREATE TABLE pt_le_null PARTITION OF pt_le FOR VALUES IN (NULL);
CREATE TABLE pt_le_def PARTITION OF pt_le DEFAULT;
EXPLAIN (COSTS OFF) SELECT * FROM pt_le;
DROP TABLE pt_le;

-- name: pt_keys_cascade
-- @errors
DROP TABLE IF EXISTS pt_pk CASCADE;
CREATE TABLE pt_pk (id int PRIMARY KEY, v text) PARTITION BY RANGE (id);
CREATE TABLE pt_pk1 PARTITION OF pt_pk FOR VALUES FROM (0) TO (100);
CREATE TABLE pt_pk2 PARTITION OF pt_pk FOR VALUES FROM (100) TO (200);
INSERT INTO pt_pk VALUES (1, 'a'), (150, 'b');
INSERT INTO pt_pk VALUES (1, 'dup');
SELECT * FROM pt_pk ORDER BY id;
SELECT c.relname AS idx FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid WHERE t.relname LIKE 'pt_pk_' ORDER BY 1;
DROP TABLE pt_pk;

-- name: pt_copy
-- @modes simple
DROP TABLE IF EXISTS pt_c CASCADE;
CREATE TABLE pt_c (a int, b text) PARTITION BY LIST (a);
CREATE TABLE pt_c1 PARTITION OF pt_c FOR VALUES IN (1);
CREATE TABLE pt_c2 PARTITION OF pt_c FOR VALUES IN (2);
INSERT INTO pt_c SELECT 1 + g % 2, 'x' || g FROM generate_series(1, 10) g;
SELECT count(*) FROM pt_c1;
SELECT count(*) FROM pt_c2;
DROP TABLE pt_c;

-- name: pt_transactional
DROP TABLE IF EXISTS pt_tx CASCADE;
CREATE TABLE pt_tx (a int) PARTITION BY RANGE (a);
BEGIN;
CREATE TABLE pt_tx1 PARTITION OF pt_tx FOR VALUES FROM (0) TO (10);
INSERT INTO pt_tx VALUES (5);
SELECT * FROM pt_tx;
ROLLBACK;
SELECT count(*) FROM pg_inherits WHERE inhparent = 'pt_tx'::regclass;
CREATE TABLE pt_tx1 PARTITION OF pt_tx FOR VALUES FROM (0) TO (10);
INSERT INTO pt_tx VALUES (5);
SELECT * FROM pt_tx;
DROP TABLE pt_tx;
