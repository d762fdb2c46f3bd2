-- Host rules' settings and catalog (the rules themselves: test_hba.py).

-- name: authentication_timeout_show
SHOW authentication_timeout;
SELECT current_setting('authentication_timeout');

-- name: authentication_timeout_cannot_be_set
-- @errors
SET authentication_timeout = '5s';

-- name: hba_file_cannot_be_set
-- @errors
SET hba_file = '/tmp/elsewhere';

-- name: pg_reload_conf
SELECT pg_reload_conf();

-- name: pg_hba_file_rules_columns
SELECT * FROM pg_hba_file_rules WHERE false;

-- name: pg_hba_file_rules_types
SELECT pg_typeof(line_number), pg_typeof(type), pg_typeof(database), pg_typeof(user_name), pg_typeof(netmask), pg_typeof(options), pg_typeof(error) FROM pg_hba_file_rules LIMIT 1;

-- name: pg_hba_file_rules_loopback_trust
SELECT type, database, user_name, address, netmask, auth_method, options, error FROM pg_hba_file_rules WHERE address = '127.0.0.1' AND auth_method = 'trust';
