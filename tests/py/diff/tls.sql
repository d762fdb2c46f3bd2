-- Differential SQL cases: the TLS settings and pg_stat_ssl (both servers run with ssl = on;
-- these sessions connect without TLS). Sessions over TLS: test_tls.py.

-- name: ssl_settings_show
SHOW ssl;
SELECT current_setting('ssl');
SHOW ssl_ca_file;
SELECT name, setting FROM pg_settings WHERE name IN ('ssl', 'ssl_ca_file') ORDER BY name;

-- name: ssl_settings_cannot_be_changed
-- @errors
SET ssl = off;
SET ssl_cert_file = 'other.crt';
SET ssl_key_file TO DEFAULT;
RESET ssl_ca_file;
SELECT set_config('ssl', 'off', false);
SET data_directory = '/tmp';
BEGIN;
SET LOCAL ssl = off;
ROLLBACK;

-- name: pg_stat_ssl_plain_session
SELECT ssl, version, cipher, bits, client_dn, client_serial, issuer_dn
  FROM pg_stat_ssl WHERE pid = pg_backend_pid();
SELECT count(*) FROM pg_stat_ssl WHERE pid = pg_backend_pid();
SELECT s.ssl, a.state FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
  WHERE s.pid = pg_backend_pid();
