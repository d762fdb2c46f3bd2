WITH i AS (INSERT INTO trgn_events (client, v) VALUES (:client_id, 1) RETURNING client, v) SELECT pg_notify('trgn', row_to_json(i)::text) FROM i;
