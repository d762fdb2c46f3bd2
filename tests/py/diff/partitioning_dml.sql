-- Differential SQL cases: what is written through a partitioned table and what reads its
-- structure. UPDATE and DELETE of a partitioned table (every unpruned leaf, row movement
-- between partitions, its 23514 errors, RETURNING, EXPLAIN's Update on p / Update on p1 p_1
-- over the Append), tableoid and the other system columns read through the parent, INSERT
-- ... ON CONFLICT routed to the leaf and decided by its unique index, ALTER TABLE ... ATTACH
-- / DETACH PARTITION (its checks and errors, validation of the rows, the default partition,
-- the parent's keys made on the attached table), pg_partition_tree and pg_partition_root.
-- Objects are named pt_...; no case shows an OID.

-- name: pt_update_delete
-- @errors
DROP TABLE IF EXISTS pt_ud CASCADE;
CREATE TABLE pt_ud (a int, b text) PARTITION BY RANGE (a);
CREATE TABLE pt_ud1 PARTITION OF pt_ud FOR VALUES FROM (1) TO (10);
CREATE TABLE pt_ud2 PARTITION OF pt_ud FOR VALUES FROM (10) TO (20);
INSERT INTO pt_ud VALUES (1, 'x'), (5, 'y'), (15, 'z');
UPDATE pt_ud SET b = b || '!' WHERE a < 10;
SELECT * FROM pt_ud ORDER BY a;
UPDATE pt_ud SET a = a + 10 WHERE a = 5 RETURNING *;
SELECT * FROM pt_ud1 ORDER BY a;
SELECT * FROM pt_ud2 ORDER BY a;
UPDATE pt_ud SET a = 30 WHERE a = 1;
UPDATE pt_ud1 SET a = 15 WHERE a = 1;
UPDATE pt_ud SET b = 'all';
DELETE FROM pt_ud WHERE a = 15 RETURNING a, b;
SELECT * FROM pt_ud ORDER BY a;
DELETE FROM pt_ud;
SELECT count(*) FROM pt_ud;
DROP TABLE pt_ud;

-- name: pt_update_movement_nested
-- @errors
DROP TABLE IF EXISTS pt_um CASCADE;
CREATE TABLE pt_um (k text, n int, v int DEFAULT 0) PARTITION BY LIST (k);
CREATE TABLE pt_um_a PARTITION OF pt_um FOR VALUES IN ('a') PARTITION BY RANGE (n);
CREATE TABLE pt_um_a1 PARTITION OF pt_um_a FOR VALUES FROM (0) TO (100);
CREATE TABLE pt_um_a2 PARTITION OF pt_um_a FOR VALUES FROM (100) TO (200);
CREATE TABLE pt_um_b PARTITION OF pt_um FOR VALUES IN ('b');
CREATE TABLE pt_um_d PARTITION OF pt_um DEFAULT;
INSERT INTO pt_um (k, n) VALUES ('a', 1), ('a', 150), ('b', 7), ('z', 9);
UPDATE pt_um SET n = n + 100 WHERE k = 'a' RETURNING k, n, v;
UPDATE pt_um SET k = 'b' WHERE k = 'z';
UPDATE pt_um SET k = 'q', v = v + 1 WHERE n = 7;
SELECT * FROM pt_um_a1 ORDER BY n;
SELECT * FROM pt_um_a2 ORDER BY n;
SELECT * FROM pt_um_b ORDER BY n;
SELECT * FROM pt_um_d ORDER BY n;
SELECT * FROM pt_um ORDER BY k, n;
UPDATE pt_um_a SET k = 'b';
UPDATE pt_um SET n = 500 WHERE k = 'a';
DELETE FROM pt_um WHERE k IN ('a', 'q') RETURNING *;
SELECT count(*) FROM pt_um;
DROP TABLE pt_um;

-- name: pt_update_explain
DROP TABLE IF EXISTS pt_ue CASCADE;
CREATE TABLE pt_ue (a int, b text) PARTITION BY RANGE (a);
CREATE TABLE pt_ue1 PARTITION OF pt_ue FOR VALUES FROM (1) TO (10);
CREATE TABLE pt_ue2 PARTITION OF pt_ue FOR VALUES FROM (10) TO (20);
CREATE TABLE pt_ue3 PARTITION OF pt_ue FOR VALUES FROM (20) TO (30);
EXPLAIN (COSTS OFF) UPDATE pt_ue SET b = 'q';
EXPLAIN (COSTS OFF) UPDATE pt_ue SET b = 'q' WHERE a = 1;
EXPLAIN (COSTS OFF) DELETE FROM pt_ue WHERE a > 12;
EXPLAIN (COSTS OFF) DELETE FROM pt_ue;
EXPLAIN (COSTS OFF) DELETE FROM pt_ue x WHERE x.a < 15;
DROP TABLE pt_ue;

-- name: pt_update_keys
-- @errors
DROP TABLE IF EXISTS pt_uk CASCADE;
CREATE TABLE pt_uk (id int PRIMARY KEY, v text) PARTITION BY RANGE (id);
CREATE TABLE pt_uk1 PARTITION OF pt_uk FOR VALUES FROM (0) TO (100);
CREATE TABLE pt_uk2 PARTITION OF pt_uk FOR VALUES FROM (100) TO (200);
INSERT INTO pt_uk VALUES (1, 'a'), (2, 'b'), (150, 'c');
UPDATE pt_uk SET id = 150 WHERE id = 1;
UPDATE pt_uk SET id = 2 WHERE id = 1;
UPDATE pt_uk SET id = 120 WHERE id = 1;
SELECT * FROM pt_uk ORDER BY id;
BEGIN;
UPDATE pt_uk SET id = id + 50 WHERE id = 2;
SELECT * FROM pt_uk2 ORDER BY id;
ROLLBACK;
SELECT * FROM pt_uk ORDER BY id;
DROP TABLE pt_uk;

-- name: pt_tableoid
-- @modes simple,extended
DROP TABLE IF EXISTS pt_to CASCADE;
CREATE TABLE pt_to (a int, b text) PARTITION BY LIST (a);
CREATE TABLE pt_to1 PARTITION OF pt_to FOR VALUES IN (1, 2);
CREATE TABLE pt_to2 PARTITION OF pt_to FOR VALUES IN (3) PARTITION BY LIST (b);
CREATE TABLE pt_to2x PARTITION OF pt_to2 FOR VALUES IN ('x');
INSERT INTO pt_to VALUES (1, 'a'), (2, 'b'), (3, 'x');
SELECT tableoid::regclass, * FROM pt_to ORDER BY a;
SELECT t.tableoid::regclass, t.a FROM pt_to t WHERE t.a = 3;
SELECT tableoid::regclass, count(*) FROM pt_to GROUP BY 1 ORDER BY 1;
SELECT tableoid::regclass, ctid, a FROM pt_to WHERE a < 3 ORDER BY a;
SELECT a FROM pt_to WHERE tableoid = 'pt_to1'::regclass ORDER BY a;
SELECT count(*) FROM pt_to WHERE xmin::text::int > 0;
UPDATE pt_to SET b = 'c' WHERE a = 2 RETURNING tableoid::regclass, a, b;
INSERT INTO pt_to VALUES (2, 'd') RETURNING tableoid::regclass, *;
DELETE FROM pt_to WHERE a = 3 RETURNING tableoid::regclass, *;
DROP TABLE pt_to;

-- name: pt_on_conflict
-- @modes simple,extended
-- @errors
DROP TABLE IF EXISTS pt_oc CASCADE;
CREATE TABLE pt_oc (a int PRIMARY KEY, b text) PARTITION BY LIST (a);
CREATE TABLE pt_oc1 PARTITION OF pt_oc FOR VALUES IN (1, 2);
CREATE TABLE pt_oc2 PARTITION OF pt_oc FOR VALUES IN (3, 4);
INSERT INTO pt_oc VALUES (1, 'x'), (3, 'y');
INSERT INTO pt_oc VALUES (1, 'z') ON CONFLICT (a) DO UPDATE SET b = excluded.b RETURNING tableoid::regclass, *;
INSERT INTO pt_oc VALUES (3, 'w') ON CONFLICT DO NOTHING;
INSERT INTO pt_oc VALUES (4, 'w'), (3, 'v') ON CONFLICT (a) DO NOTHING RETURNING *;
INSERT INTO pt_oc VALUES (1, 'q') ON CONFLICT (a) DO UPDATE SET a = 3;
INSERT INTO pt_oc VALUES (1, 'q') ON CONFLICT (a) DO UPDATE SET a = 2 RETURNING *;
INSERT INTO pt_oc VALUES (9, 'q') ON CONFLICT (a) DO NOTHING;
INSERT INTO pt_oc VALUES (4, 'q'), (4, 'r') ON CONFLICT (a) DO UPDATE SET b = excluded.b;
INSERT INTO pt_oc VALUES (3, 'p') ON CONFLICT (a) DO UPDATE SET b = pt_oc.b || excluded.b WHERE pt_oc.b <> 'y';
INSERT INTO pt_oc VALUES (4, 'p') ON CONFLICT (a) DO UPDATE SET b = pt_oc.b || excluded.b WHERE pt_oc.b <> 'y';
SELECT tableoid::regclass, * FROM pt_oc ORDER BY a;
DROP TABLE IF EXISTS pt_ocn CASCADE;
CREATE TABLE pt_ocn (a int, b text) PARTITION BY LIST (a);
CREATE TABLE pt_ocn1 PARTITION OF pt_ocn FOR VALUES IN (1, 2);
INSERT INTO pt_ocn VALUES (1, 'z') ON CONFLICT (a) DO NOTHING;
INSERT INTO pt_ocn VALUES (1, 'z') ON CONFLICT DO NOTHING;
SELECT * FROM pt_ocn;
DROP TABLE pt_oc;
DROP TABLE pt_ocn;

-- name: pt_attach_detach
-- @modes simple,extended
-- @errors
DROP TABLE IF EXISTS pt_q, pt_q2, pt_q3, pt_q4, pt_q5, pt_q7, pt_q8 CASCADE;
CREATE TABLE pt_q (a int NOT NULL, b text, PRIMARY KEY (a)) PARTITION BY RANGE (a);
CREATE TABLE pt_q1 PARTITION OF pt_q FOR VALUES FROM (1) TO (10);
CREATE TABLE pt_q2 (a int NOT NULL, b text);
INSERT INTO pt_q2 VALUES (10, 'x'), (15, 'y');
ALTER TABLE pt_q ATTACH PARTITION pt_q2 FOR VALUES FROM (5) TO (20);
ALTER TABLE pt_q ATTACH PARTITION pt_q2 FOR VALUES FROM (20) TO (30);
ALTER TABLE pt_q ATTACH PARTITION pt_q2 FOR VALUES FROM (10) TO (20);
SELECT relname FROM pg_class WHERE relname LIKE 'pt_q2%' ORDER BY 1;
SELECT c.relname, c.relispartition, pg_get_expr(c.relpartbound, c.oid) FROM pg_class c WHERE c.relname LIKE 'pt_q_' ORDER BY 1;
SELECT tableoid::regclass, * FROM pt_q ORDER BY a;
INSERT INTO pt_q VALUES (12, 'r');
INSERT INTO pt_q VALUES (12, 'dup');
ALTER TABLE pt_q ATTACH PARTITION pt_q2 FOR VALUES FROM (30) TO (40);
ALTER TABLE pt_q ATTACH PARTITION pt_q1 FOR VALUES FROM (30) TO (40);
CREATE TABLE pt_q3 (a int NOT NULL, c text);
ALTER TABLE pt_q ATTACH PARTITION pt_q3 FOR VALUES FROM (30) TO (40);
CREATE TABLE pt_q4 (a int NOT NULL, b int);
ALTER TABLE pt_q ATTACH PARTITION pt_q4 FOR VALUES FROM (30) TO (40);
CREATE TABLE pt_q5 (a int, b text);
ALTER TABLE pt_q ATTACH PARTITION pt_q5 FOR VALUES FROM (30) TO (40);
CREATE TABLE pt_q7 (a int NOT NULL);
ALTER TABLE pt_q ATTACH PARTITION pt_q7 FOR VALUES FROM (30) TO (40);
ALTER TABLE pt_q2 ATTACH PARTITION pt_q7 FOR VALUES FROM (30) TO (40);
ALTER TABLE pt_q ATTACH PARTITION pt_q7 FOR VALUES IN (1);
ALTER TABLE pt_q ATTACH PARTITION pt_nosuch FOR VALUES FROM (30) TO (40);
CREATE TABLE pt_qd PARTITION OF pt_q DEFAULT;
INSERT INTO pt_q VALUES (35, 'd');
CREATE TABLE pt_q8 (a int NOT NULL, b text);
ALTER TABLE pt_q ATTACH PARTITION pt_q8 FOR VALUES FROM (30) TO (40);
ALTER TABLE pt_q DETACH PARTITION pt_q2;
ALTER TABLE pt_q DETACH PARTITION pt_q2;
ALTER TABLE pt_q DETACH PARTITION pt_q8;
SELECT relname, relispartition FROM pg_class WHERE relname = 'pt_q2';
SELECT count(*) FROM pg_inherits WHERE inhrelid = 'pt_q2'::regclass;
SELECT * FROM pt_q ORDER BY a;
INSERT INTO pt_q2 VALUES (100, 'z');
SELECT * FROM pt_q2 ORDER BY a;
BEGIN;
ALTER TABLE pt_q ATTACH PARTITION pt_q8 FOR VALUES FROM (40) TO (50);
INSERT INTO pt_q VALUES (45, 'in');
SELECT tableoid::regclass, * FROM pt_q WHERE a > 40;
ROLLBACK;
SELECT relispartition FROM pg_class WHERE relname = 'pt_q8';
SELECT count(*) FROM pt_q8;
DROP TABLE pt_q, pt_q2, pt_q3, pt_q4, pt_q5, pt_q7, pt_q8 CASCADE;

-- name: pt_attach_default_list
-- @modes simple,extended
-- @errors
DROP TABLE IF EXISTS pt_al, pt_al_d, pt_al_x CASCADE;
CREATE TABLE pt_al (k text, n int) PARTITION BY LIST (k);
CREATE TABLE pt_al_a PARTITION OF pt_al FOR VALUES IN ('a');
CREATE TABLE pt_al_d (k text, n int);
INSERT INTO pt_al_d VALUES ('a', 1);
ALTER TABLE pt_al ATTACH PARTITION pt_al_d DEFAULT;
DELETE FROM pt_al_d;
INSERT INTO pt_al_d VALUES ('zz', 1);
ALTER TABLE pt_al ATTACH PARTITION pt_al_d DEFAULT;
CREATE TABLE pt_al_x (k text, n int);
ALTER TABLE pt_al ATTACH PARTITION pt_al_x DEFAULT;
ALTER TABLE pt_al ATTACH PARTITION pt_al_x FOR VALUES IN ('zz');
ALTER TABLE pt_al ATTACH PARTITION pt_al_x FOR VALUES IN ('x');
INSERT INTO pt_al VALUES ('x', 5), ('q', 6);
SELECT tableoid::regclass, * FROM pt_al ORDER BY k;
UPDATE pt_al SET k = 'x' WHERE k = 'q';
SELECT tableoid::regclass, * FROM pt_al ORDER BY k, n;
DROP TABLE pt_al;

-- name: pt_partition_info
-- @modes simple,extended
DROP TABLE IF EXISTS pt_pi CASCADE;
CREATE TABLE pt_pi (a int, b int) PARTITION BY RANGE (a);
CREATE TABLE pt_pi0 PARTITION OF pt_pi FOR VALUES FROM (MINVALUE) TO (0) PARTITION BY LIST (b);
CREATE TABLE pt_pi01 PARTITION OF pt_pi0 FOR VALUES IN (1);
CREATE TABLE pt_pi1 PARTITION OF pt_pi FOR VALUES FROM (0) TO (100);
CREATE TABLE pt_pi3 PARTITION OF pt_pi FOR VALUES FROM (200) TO (MAXVALUE) PARTITION BY LIST (b);
CREATE TABLE pt_plain (a int);
SELECT pg_partition_root('pt_pi'), pg_partition_root('pt_pi0'), pg_partition_root('pt_pi01'), pg_partition_root('pt_pi3');
SELECT pg_partition_root('pt_plain'), pg_partition_root(NULL), pg_partition_root(0);
SELECT relid, parentrelid, level, isleaf FROM pg_partition_tree('pt_pi');
SELECT relid, parentrelid, level, isleaf FROM pg_partition_tree('pt_pi0');
SELECT relid, parentrelid, level, isleaf FROM pg_partition_tree('pt_pi01');
SELECT relid, parentrelid, level, isleaf FROM pg_partition_tree('pt_pi3');
SELECT * FROM pg_partition_tree('pt_plain');
SELECT * FROM pg_partition_tree(NULL);
SELECT * FROM pg_partition_tree(0);
SELECT relid, parentrelid, level, isleaf FROM pg_partition_tree(pg_partition_root('pt_pi01')) p JOIN pg_class c ON (p.relid = c.oid);
SELECT count(*) FROM pg_partition_tree('pt_pi') WHERE isleaf;
DROP TABLE pt_pi, pt_plain;
