INSERT INTO trgn_events (client, v) VALUES (:client_id, 1);
