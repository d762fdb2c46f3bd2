-- Differential SQL cases: COPY (query) TO STDOUT.

-- name: copy_text
COPY (SELECT 1 AS a, 'x' AS b) TO STDOUT;
COPY (SELECT x, x * 2 FROM generate_series(1, 3) x) TO STDOUT;
COPY (SELECT NULL::int, E'tab\there', E'new\nline', E'back\\slash', E'cr\rret', '') TO STDOUT;
COPY (SELECT 1.5::numeric, true, '2024-01-02'::date, '2024-01-02 03:04:05'::timestamp, '\x0102'::bytea, ARRAY[1, 2]) TO STDOUT;
COPY (SELECT x FROM generate_series(1, 0) x) TO STDOUT;
COPY (SELECT 'é', 'ü日本') TO STDOUT;
COPY (VALUES (1, 'a'), (2, 'b')) TO STDOUT;

-- name: copy_options
COPY (SELECT 1, 'a') TO STDOUT WITH (DELIMITER '|');
COPY (SELECT NULL, 'a') TO STDOUT WITH (NULL 'NULL');
COPY (SELECT 1, 'a') TO STDOUT (FORMAT text);
COPY (SELECT 1, 'a') TO STDOUT DELIMITER ',';

-- name: copy_csv
COPY (SELECT 1 AS id, 'a,b' AS s, 'quote"d' AS q, NULL AS n, '' AS e) TO STDOUT WITH (FORMAT csv);
COPY (SELECT 1 AS id, 'plain' AS s) TO STDOUT WITH (FORMAT csv, HEADER);
COPY (SELECT 1 AS id, 'plain' AS s) TO STDOUT WITH CSV HEADER;
COPY (SELECT 'multi
line', ' spaced ') TO STDOUT CSV;
COPY (SELECT 1, 'a') TO STDOUT WITH (FORMAT csv, DELIMITER ';', QUOTE '''', FORCE_QUOTE *);
COPY (SELECT x, 'row' || x FROM generate_series(1, 3) x) TO STDOUT (FORMAT csv, HEADER true);

-- name: copy_binary
COPY (SELECT 1::int4, 'a'::text, NULL::int8) TO STDOUT WITH (FORMAT binary);

-- name: copy_errors
-- @errors
COPY (SELECT 1 / 0) TO STDOUT;
COPY (SELECT 1 / (x - 2) FROM generate_series(1, 3) x) TO STDOUT;
COPY nosuchtable TO STDOUT;
COPY (SELEC 1) TO STDOUT;
COPY (SELECT 1) TO STDOUT WITH (FORMAT nosuch);
COPY (SELECT 1) TO STDOUT WITH (FORMAT csv, HEADER, NOSUCHOPT 1);
