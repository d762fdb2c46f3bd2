-- Differential SQL cases: foreign keys (issue 19): REFERENCES and FOREIGN KEY in CREATE TABLE,
-- ALTER TABLE ... ADD FOREIGN KEY, the checks of referencing and referenced rows, the ON
-- DELETE / ON UPDATE actions, MATCH FULL, pg_constraint, DROP TABLE and TRUNCATE of a
-- referenced table. Every case creates tables named after the case (prefix fk_) and drops
-- them at the end; the leading DROP TABLE IF EXISTS ... CASCADE makes it idempotent.

-- name: fk_column_references
-- @errors
DROP TABLE IF EXISTS fk_c1, fk_p1;
CREATE TABLE fk_p1 (id int PRIMARY KEY, name text);
CREATE TABLE fk_c1 (id int PRIMARY KEY, p int REFERENCES fk_p1);
INSERT INTO fk_p1 VALUES (1, 'one'), (2, 'two');
INSERT INTO fk_c1 VALUES (10, 1), (11, 2), (12, NULL);
INSERT INTO fk_c1 VALUES (13, 5);
UPDATE fk_c1 SET p = 7 WHERE id = 10;
UPDATE fk_c1 SET p = 2 WHERE id = 10;
DELETE FROM fk_p1 WHERE id = 2;
UPDATE fk_p1 SET id = 3 WHERE id = 1;
UPDATE fk_p1 SET name = 'uno' WHERE id = 1;
DELETE FROM fk_p1 WHERE id = 1;
SELECT * FROM fk_p1 ORDER BY id;
SELECT * FROM fk_c1 ORDER BY id;
DROP TABLE fk_c1, fk_p1;

-- name: fk_table_constraint_named_and_multi_column
-- @errors
DROP TABLE IF EXISTS fk_c2, fk_p2;
CREATE TABLE fk_p2 (a int, b text, v int, PRIMARY KEY (a, b));
CREATE TABLE fk_c2 (x int, y text, CONSTRAINT my_fk FOREIGN KEY (x, y) REFERENCES fk_p2 (a, b));
INSERT INTO fk_p2 VALUES (1, 'x', 0), (2, 'y', 0);
INSERT INTO fk_c2 VALUES (1, 'x'), (2, 'y'), (NULL, 'z'), (3, NULL);
INSERT INTO fk_c2 VALUES (2, 'x');
DELETE FROM fk_p2 WHERE a = 1;
SELECT conname, contype, confupdtype, confdeltype, confmatchtype, conkey, confkey FROM pg_constraint WHERE conrelid = (SELECT oid FROM pg_class WHERE relname = 'fk_c2');
DROP TABLE fk_c2, fk_p2;

-- name: fk_referenced_columns_by_unique_in_other_order
-- @errors
DROP TABLE IF EXISTS fk_c3, fk_p3;
CREATE TABLE fk_p3 (id int PRIMARY KEY, a int, b int, UNIQUE (a, b));
CREATE TABLE fk_c3 (x int, y int, FOREIGN KEY (y, x) REFERENCES fk_p3 (b, a));
INSERT INTO fk_p3 VALUES (1, 10, 20);
INSERT INTO fk_c3 VALUES (10, 20);
INSERT INTO fk_c3 VALUES (20, 10);
DROP TABLE fk_c3, fk_p3;

-- name: fk_definition_errors
-- @errors
DROP TABLE IF EXISTS fk_c4, fk_p4;
CREATE TABLE fk_p4 (id int PRIMARY KEY, u int UNIQUE, n int, t text);
CREATE TABLE fk_c4 (p int REFERENCES fk_p4 (n));
CREATE TABLE fk_c4 (p int REFERENCES fk_nope);
CREATE TABLE fk_c4 (p int REFERENCES fk_p4 (nope));
CREATE TABLE fk_c4 (p int, FOREIGN KEY (q) REFERENCES fk_p4);
CREATE TABLE fk_c4 (p text REFERENCES fk_p4);
CREATE TABLE fk_c4 (p int, q int, FOREIGN KEY (p, q) REFERENCES fk_p4 (id));
CREATE TABLE fk_c4 (p int REFERENCES fk_p4 (u));
INSERT INTO fk_p4 VALUES (1, 100, 0, 'a');
INSERT INTO fk_c4 VALUES (100);
INSERT INTO fk_c4 VALUES (1);
DROP TABLE fk_c4, fk_p4;

-- name: fk_no_primary_key
-- @errors
DROP TABLE IF EXISTS fk_p5;
CREATE TABLE fk_p5 (id int);
CREATE TABLE fk_c5 (p int REFERENCES fk_p5);
DROP TABLE fk_p5;

-- name: fk_alter_table_add_validates
-- @errors
DROP TABLE IF EXISTS fk_c6, fk_p6;
CREATE TABLE fk_p6 (id int PRIMARY KEY);
CREATE TABLE fk_c6 (id int, p int);
INSERT INTO fk_p6 VALUES (1), (2);
INSERT INTO fk_c6 VALUES (1, 1), (2, 9), (3, NULL);
ALTER TABLE fk_c6 ADD FOREIGN KEY (p) REFERENCES fk_p6;
DELETE FROM fk_c6 WHERE p = 9;
ALTER TABLE fk_c6 ADD CONSTRAINT c6_ref FOREIGN KEY (p) REFERENCES fk_p6 (id);
ALTER TABLE fk_c6 ADD CONSTRAINT c6_ref FOREIGN KEY (p) REFERENCES fk_p6 (id);
ALTER TABLE fk_c6 ADD FOREIGN KEY (p) REFERENCES fk_p6 (id);
SELECT conname FROM pg_constraint WHERE conrelid = (SELECT oid FROM pg_class WHERE relname = 'fk_c6') ORDER BY conname;
INSERT INTO fk_c6 VALUES (4, 3);
DROP TABLE fk_c6, fk_p6;

-- name: fk_on_delete_cascade_set_null_set_default
-- @errors
DROP TABLE IF EXISTS fk_c7a, fk_c7b, fk_c7c, fk_p7;
CREATE TABLE fk_p7 (id int PRIMARY KEY);
CREATE TABLE fk_c7a (id int PRIMARY KEY, p int REFERENCES fk_p7 ON DELETE CASCADE);
CREATE TABLE fk_c7b (id int PRIMARY KEY, p int REFERENCES fk_p7 ON DELETE SET NULL);
CREATE TABLE fk_c7c (id int PRIMARY KEY, p int DEFAULT 0 REFERENCES fk_p7 ON DELETE SET DEFAULT);
INSERT INTO fk_p7 VALUES (0), (1), (2), (3);
INSERT INTO fk_c7a VALUES (1, 1), (2, 1), (3, 2);
INSERT INTO fk_c7b VALUES (1, 1), (2, 2);
INSERT INTO fk_c7c VALUES (1, 1), (2, 3);
DELETE FROM fk_p7 WHERE id = 1;
SELECT * FROM fk_c7a ORDER BY id;
SELECT * FROM fk_c7b ORDER BY id;
SELECT * FROM fk_c7c ORDER BY id;
DELETE FROM fk_p7 WHERE id = 0;
DELETE FROM fk_p7 WHERE id IN (2, 3) RETURNING id;
SELECT * FROM fk_c7a ORDER BY id;
SELECT * FROM fk_c7c ORDER BY id;
DROP TABLE fk_c7a, fk_c7b, fk_c7c, fk_p7;

-- name: fk_on_update_cascade_and_restrict
-- @errors
DROP TABLE IF EXISTS fk_c8a, fk_c8b, fk_p8;
CREATE TABLE fk_p8 (id int PRIMARY KEY, v int);
CREATE TABLE fk_c8a (id int PRIMARY KEY, p int REFERENCES fk_p8 ON UPDATE CASCADE);
CREATE TABLE fk_c8b (id int PRIMARY KEY, p int REFERENCES fk_p8 ON UPDATE RESTRICT ON DELETE RESTRICT);
INSERT INTO fk_p8 VALUES (1, 0), (2, 0), (3, 0);
INSERT INTO fk_c8a VALUES (1, 1), (2, 1);
INSERT INTO fk_c8b VALUES (1, 2);
UPDATE fk_p8 SET id = 10 WHERE id = 1;
SELECT * FROM fk_c8a ORDER BY id;
UPDATE fk_p8 SET id = 20 WHERE id = 2;
DELETE FROM fk_p8 WHERE id = 2;
UPDATE fk_p8 SET v = 5 WHERE id = 2;
UPDATE fk_p8 SET id = id WHERE id = 2;
SELECT * FROM fk_p8 ORDER BY id;
DROP TABLE fk_c8a, fk_c8b, fk_p8;

-- name: fk_no_action_in_a_transaction_block
-- @errors
DROP TABLE IF EXISTS fk_c9, fk_p9;
CREATE TABLE fk_p9 (id int PRIMARY KEY);
CREATE TABLE fk_c9 (p int REFERENCES fk_p9);
INSERT INTO fk_p9 VALUES (1), (2);
INSERT INTO fk_c9 VALUES (1);
BEGIN;
DELETE FROM fk_p9 WHERE id = 1;
ROLLBACK;
SELECT * FROM fk_p9 ORDER BY id;
DROP TABLE fk_c9, fk_p9;

-- name: fk_self_reference_and_cascade_chain
-- @errors
DROP TABLE IF EXISTS fk_tree;
CREATE TABLE fk_tree (id int PRIMARY KEY, parent int REFERENCES fk_tree ON DELETE CASCADE);
INSERT INTO fk_tree VALUES (1, NULL), (2, 1), (3, 2), (4, 3), (5, 1);
INSERT INTO fk_tree VALUES (6, 6);
INSERT INTO fk_tree VALUES (7, 8), (8, 7);
INSERT INTO fk_tree VALUES (9, 10);
DELETE FROM fk_tree WHERE id = 2;
SELECT * FROM fk_tree ORDER BY id;
DROP TABLE fk_tree;

-- name: fk_match_full
-- @errors
DROP TABLE IF EXISTS fk_c10, fk_p10;
CREATE TABLE fk_p10 (a int, b int, PRIMARY KEY (a, b));
CREATE TABLE fk_c10 (a int, b int, FOREIGN KEY (a, b) REFERENCES fk_p10 MATCH FULL);
INSERT INTO fk_p10 VALUES (1, 1);
INSERT INTO fk_c10 VALUES (1, 1), (NULL, NULL);
INSERT INTO fk_c10 VALUES (1, NULL);
SELECT confmatchtype FROM pg_constraint WHERE conrelid = (SELECT oid FROM pg_class WHERE relname = 'fk_c10');
DROP TABLE fk_c10, fk_p10;

-- name: fk_drop_referenced_table
-- @errors
DROP TABLE IF EXISTS fk_c11, fk_c11b, fk_p11;
CREATE TABLE fk_p11 (id int PRIMARY KEY);
CREATE TABLE fk_c11 (p int REFERENCES fk_p11);
CREATE TABLE fk_c11b (p int REFERENCES fk_p11);
DROP TABLE fk_p11;
TRUNCATE fk_p11;
TRUNCATE fk_p11, fk_c11, fk_c11b;
DROP TABLE fk_c11b;
DROP TABLE fk_p11;
DROP TABLE fk_p11 CASCADE;
SELECT count(*) FROM pg_constraint WHERE conrelid = (SELECT oid FROM pg_class WHERE relname = 'fk_c11');
INSERT INTO fk_c11 VALUES (42);
DROP TABLE fk_c11;

-- name: fk_drop_cascade_several
DROP TABLE IF EXISTS fk_c12a, fk_c12b, fk_p12;
CREATE TABLE fk_p12 (id int PRIMARY KEY);
CREATE TABLE fk_c12a (p int REFERENCES fk_p12);
CREATE TABLE fk_c12b (p int REFERENCES fk_p12);
DROP TABLE fk_p12 CASCADE;
DROP TABLE fk_c12a, fk_c12b;

-- name: fk_drop_both_in_one_statement
DROP TABLE IF EXISTS fk_c13, fk_p13;
CREATE TABLE fk_p13 (id int PRIMARY KEY);
CREATE TABLE fk_c13 (p int REFERENCES fk_p13);
DROP TABLE fk_p13, fk_c13;

-- name: fk_insert_parent_and_child_in_one_statement
DROP TABLE IF EXISTS fk_c14, fk_p14;
CREATE TABLE fk_p14 (id int PRIMARY KEY);
CREATE TABLE fk_c14 (id int PRIMARY KEY, p int REFERENCES fk_p14);
BEGIN;
INSERT INTO fk_p14 VALUES (1);
INSERT INTO fk_c14 VALUES (1, 1);
COMMIT;
SELECT * FROM fk_c14;
DROP TABLE fk_c14, fk_p14;

-- name: fk_savepoint_rollback_and_types
-- @errors
DROP TABLE IF EXISTS fk_c15, fk_p15;
CREATE TABLE fk_p15 (id bigint PRIMARY KEY, code varchar(10) UNIQUE);
CREATE TABLE fk_c15 (p int REFERENCES fk_p15, c text REFERENCES fk_p15 (code));
INSERT INTO fk_p15 VALUES (1, 'a');
BEGIN;
SAVEPOINT s;
INSERT INTO fk_c15 VALUES (2, 'a');
ROLLBACK TO SAVEPOINT s;
INSERT INTO fk_c15 VALUES (1, 'a');
INSERT INTO fk_c15 VALUES (1, 'b');
ROLLBACK;
SELECT count(*) FROM fk_c15;
DROP TABLE fk_c15, fk_p15;

-- name: fk_generated_names_are_shortened_as_postgresql_does
DROP TABLE IF EXISTS fk_child_with_a_rather_long_name_for_the_test, fk_p16;
CREATE TABLE fk_p16 (id int PRIMARY KEY, k int UNIQUE);
CREATE TABLE fk_child_with_a_rather_long_name_for_the_test (referencing_column_with_long_name int REFERENCES fk_p16, referencing_column_with_long_name2 int REFERENCES fk_p16 (k));
ALTER TABLE fk_child_with_a_rather_long_name_for_the_test ADD FOREIGN KEY (referencing_column_with_long_name) REFERENCES fk_p16;
SELECT conname FROM pg_constraint WHERE contype = 'f' AND conrelid = (SELECT oid FROM pg_class WHERE relname = 'fk_child_with_a_rather_long_name_for_the_test') ORDER BY conname;
DROP TABLE fk_child_with_a_rather_long_name_for_the_test, fk_p16;

-- name: fk_cascade_through_a_deep_chain
DROP TABLE IF EXISTS fk_chain;
CREATE TABLE fk_chain (id int PRIMARY KEY, parent int REFERENCES fk_chain ON DELETE CASCADE);
INSERT INTO fk_chain SELECT g, nullif(g - 1, 0) FROM generate_series(1, 60) g;
DELETE FROM fk_chain WHERE id = 1;
SELECT count(*) FROM fk_chain;
DROP TABLE fk_chain;

-- name: fk_pg_get_constraintdef
DROP TABLE IF EXISTS fk_c17, fk_p17;
CREATE TABLE fk_p17 (id int PRIMARY KEY, a int, b int, UNIQUE (a, b));
CREATE TABLE fk_c17 (x int REFERENCES fk_p17 ON DELETE CASCADE ON UPDATE SET NULL, "Y" int, z int,
  FOREIGN KEY ("Y", z) REFERENCES fk_p17 (a, b) MATCH FULL ON UPDATE RESTRICT,
  CONSTRAINT c17_x FOREIGN KEY (x) REFERENCES fk_p17 ON DELETE SET DEFAULT);
SELECT conname, pg_get_constraintdef(oid), pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid IN (SELECT oid FROM pg_class WHERE relname IN ('fk_c17', 'fk_p17')) ORDER BY conname;
DROP TABLE fk_c17, fk_p17;

-- name: fk_returning
DROP TABLE IF EXISTS fk_c18, fk_p18;
CREATE TABLE fk_p18 (id int PRIMARY KEY);
CREATE TABLE fk_c18 (id int, p int REFERENCES fk_p18 ON DELETE CASCADE);
INSERT INTO fk_p18 VALUES (1), (2);
INSERT INTO fk_c18 VALUES (1, 1), (2, 1), (3, 2) RETURNING *;
DELETE FROM fk_p18 WHERE id = 1 RETURNING *;
SELECT * FROM fk_c18 ORDER BY id;
DROP TABLE fk_c18, fk_p18;

-- name: fk_insert_on_conflict_checks_the_new_row
-- @errors
DROP TABLE IF EXISTS fk_c19, fk_p19;
CREATE TABLE fk_p19 (id int PRIMARY KEY);
CREATE TABLE fk_c19 (id int PRIMARY KEY, p int REFERENCES fk_p19);
INSERT INTO fk_p19 VALUES (1), (2);
INSERT INTO fk_c19 VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET p = excluded.p;
INSERT INTO fk_c19 VALUES (1, 2) ON CONFLICT (id) DO UPDATE SET p = excluded.p;
INSERT INTO fk_c19 VALUES (1, 3) ON CONFLICT (id) DO UPDATE SET p = excluded.p;
INSERT INTO fk_c19 VALUES (2, 3) ON CONFLICT DO NOTHING;
SELECT * FROM fk_c19 ORDER BY id;
DROP TABLE fk_c19, fk_p19;
