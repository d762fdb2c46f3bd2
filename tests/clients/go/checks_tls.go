package main

// TLS checks: the server answers SSLRequest with 'S' (threadgres by default, with its
// self-signed certificate; the harness's PostgreSQL with ssl = on). pg_stat_ssl tells from
// inside the session whether it runs over TLS.

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	_ "github.com/lib/pq"
)

const sslRowQuery = "select ssl, coalesce(version, '') from pg_stat_ssl where pid = pg_backend_pid()"

func expectTLS(what string, ssl bool, version string) error {
	if !ssl {
		return fmt.Errorf("%s: pg_stat_ssl says the session is not encrypted", what)
	}
	if !strings.HasPrefix(version, "TLSv1.") {
		return fmt.Errorf("%s: unexpected TLS version %q", what, version)
	}
	return nil
}

// lib/pq's default sslmode is require (unlike libpq's prefer): a server without TLS refuses
// it. The DSN is used as given, so the default applies.
func checkLibpqDefaultSslmode(ctx context.Context, dsn string) error {
	db, err := sql.Open("postgres", withConnectTimeout(dsn))
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer db.Close()
	var ssl bool
	var version string
	if err := db.QueryRowContext(ctx, sslRowQuery).Scan(&ssl, &version); err != nil {
		return fmt.Errorf("lib/pq query: %w", err)
	}
	if err := expectTLS("lib/pq", ssl, version); err != nil {
		return err
	}
	var sum int64
	if err := db.QueryRowContext(ctx, "select $1::int8 + $2::int8", 40, 2).Scan(&sum); err != nil {
		return fmt.Errorf("lib/pq parameters: %w", err)
	}
	return expectEq("sum", sum, int64(42))
}

// pgx with sslmode=require.
func checkTLSRequire(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn, "sslmode=require")
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	var ssl bool
	var version string
	if err := conn.QueryRow(ctx, sslRowQuery).Scan(&ssl, &version); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	return expectTLS("pgx", ssl, version)
}
