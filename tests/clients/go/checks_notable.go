package main

// Checks that need no tables: they exercise the protocol paths (simple protocol,
// statement cache, batches, transaction and savepoint states) with SELECTs and
// session settings only. The *_table variants in main.go do the same with DDL/DML.

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

func showAppName(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (string, error) {
	var v string
	err := q.QueryRow(ctx, "show application_name").Scan(&v)
	return v, err
}

func expectAppName(ctx context.Context, conn *pgx.Conn, want, when string) error {
	got, err := showAppName(ctx, conn)
	if err != nil {
		return fmt.Errorf("show application_name %s: %w", when, err)
	}
	return expectEq("application_name "+when, got, want)
}

// default_query_exec_mode=simple_protocol: arguments are interpolated client-side into
// a simple Query; needs standard_conforming_strings=on and client_encoding=UTF8.
func checkSimpleProtocol(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn, "default_query_exec_mode=simple_protocol")
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	want := time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)
	var (
		sum  int64
		txt  string
		ts   time.Time
		f    float64
		b    bool
		ba   []byte
		num  pgtype.Numeric
		same bool
	)
	err = conn.QueryRow(ctx, "select $1::int8 + 1, $2::text, $3::timestamptz, $4::float8, $5::bool, $6::bytea, $7::numeric, 2 = $8",
		int64(41), "it's a \\ test", want, -1.25, true, []byte{0, 0xff}, pgtype.Numeric{Int: big.NewInt(-314), Exp: -2, Valid: true}, "2").
		Scan(&sum, &txt, &ts, &f, &b, &ba, &num, &same)
	if err != nil {
		return fmt.Errorf("select with params: %w", err)
	}
	nv, _ := num.Value()
	if err := firstErr(
		expectEq("int8", sum, int64(42)),
		expectEq("text", txt, "it's a \\ test"),
		expectEq("timestamptz", ts.UTC(), want),
		expectEq("float8", f, -1.25),
		expectEq("bool", b, true),
		expectEq("bytea", fmt.Sprintf("%x", ba), "00ff"),
		expectEq("numeric", fmt.Sprint(nv), "-3.14"),
		expectEq("2 = '2'", same, true),
	); err != nil {
		return err
	}
	// several statements in one simple Query: one result each
	results, err := conn.PgConn().Exec(ctx, "select 1 as a; select 'two' as b, 3 as c; set application_name = 'pgx_simple'").ReadAll()
	if err != nil {
		return fmt.Errorf("multi-statement query: %w", err)
	}
	if len(results) != 3 {
		return fmt.Errorf("multi-statement query: %d results, want 3", len(results))
	}
	if err := firstErr(
		expectEq("result 1", fmt.Sprintf("%s %q", results[0].CommandTag, results[0].Rows), `SELECT 1 [["1"]]`),
		expectEq("result 2", fmt.Sprintf("%s %q", results[1].CommandTag, results[1].Rows), `SELECT 1 [["two" "3"]]`),
		expectEq("result 3", results[2].CommandTag.String(), "SET"),
	); err != nil {
		return err
	}
	return expectEq("application_name ParameterStatus", conn.PgConn().ParameterStatus("application_name"), "pgx_simple")
}

// Default exec mode (cache_statement): each distinct SQL text is prepared once as a
// named statement (stmtcache_*) with Describe, then Bind/Execute reuses it.
func checkStatementCache(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	for i := int64(0); i < 10; i++ {
		var d int64
		var s string
		if err := conn.QueryRow(ctx, "select $1::int8 * 2, $2::text || '!'", i, fmt.Sprint("v", i)).Scan(&d, &s); err != nil {
			return fmt.Errorf("query 1 run %d: %w", i, err)
		}
		if err := firstErr(expectEq("doubled", d, 2*i), expectEq("text", s, fmt.Sprint("v", i, "!"))); err != nil {
			return err
		}
		var gt bool
		var f float64
		if err := conn.QueryRow(ctx, "select $1::int4 > 4, $2::float8 / 2", int32(i), float64(i)).Scan(&gt, &f); err != nil {
			return fmt.Errorf("query 2 run %d: %w", i, err)
		}
		if err := firstErr(expectEq("gt", gt, i > 4), expectEq("half", f, float64(i)/2)); err != nil {
			return err
		}
	}
	// a multi-row result through the cached statement
	rows, err := conn.Query(ctx, "select g, g * $1::int4 from generate_series(1, $2::int4) as g", int32(3), int32(4))
	if err != nil {
		return fmt.Errorf("generate_series: %w", err)
	}
	type pair struct {
		A, B int32
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[pair])
	if err != nil {
		return fmt.Errorf("generate_series rows: %w", err)
	}
	return expectEq("rows", fmt.Sprint(got), "[{1 3} {2 6} {3 9} {4 12}]")
}

func checkBatch(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	b := &pgx.Batch{}
	for i := int32(1); i <= 5; i++ {
		b.Queue("select $1::int4 * 10", i)
	}
	b.Queue("set application_name = 'pgx_batch'")
	b.Queue("select $1::text || $2::text", "a", "b")
	br := conn.SendBatch(ctx, b)
	for i := int32(1); i <= 5; i++ {
		var v int32
		if err := br.QueryRow().Scan(&v); err != nil {
			br.Close()
			return fmt.Errorf("batch item %d: %w", i, err)
		}
		if v != i*10 {
			br.Close()
			return fmt.Errorf("batch item %d: got %d", i, v)
		}
	}
	tag, err := br.Exec()
	if err != nil {
		br.Close()
		return fmt.Errorf("batch SET: %w", err)
	}
	var s string
	if err := br.QueryRow().Scan(&s); err != nil {
		br.Close()
		return fmt.Errorf("batch concat: %w", err)
	}
	if err := br.Close(); err != nil {
		return fmt.Errorf("batch close: %w", err)
	}
	if err := firstErr(expectEq("SET tag", tag.String(), "SET"), expectEq("concat", s, "ab")); err != nil {
		return err
	}
	// an error in the middle: the rest up to Sync is skipped, the connection stays usable
	b2 := &pgx.Batch{}
	b2.Queue("select 1")
	b2.Queue("select 1/0")
	b2.Queue("select 2")
	err = conn.SendBatch(ctx, b2).Close()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "22012" {
		return fmt.Errorf("batch with division by zero: want 22012, got %v", err)
	}
	if st := conn.PgConn().TxStatus(); st != 'I' {
		return fmt.Errorf("status after failed batch %q, want 'I'", st)
	}
	// a batch inside an explicit transaction
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(context.Background())
	b3 := &pgx.Batch{}
	b3.Queue("set application_name = 'pgx_batch_tx'")
	b3.Queue("select $1::int8", int64(9))
	if err := tx.SendBatch(ctx, b3).Close(); err != nil {
		return fmt.Errorf("batch in transaction: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return expectAppName(ctx, conn, "pgx_batch_tx", "after batch in committed transaction")
}

// BEGIN/COMMIT/ROLLBACK, ReadyForQuery states and the aborted state, observed through
// application_name (a SET is undone when its transaction rolls back).
func checkTransactions(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	pc := conn.PgConn()

	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if pc.TxStatus() != 'T' {
		return fmt.Errorf("status after begin %q, want 'T'", pc.TxStatus())
	}
	if _, err := tx.Exec(ctx, "set application_name = 'committed'"); err != nil {
		return fmt.Errorf("set: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if pc.TxStatus() != 'I' {
		return fmt.Errorf("status after commit %q, want 'I'", pc.TxStatus())
	}
	if err := expectAppName(ctx, conn, "committed", "after commit"); err != nil {
		return err
	}

	tx, err = conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin 2: %w", err)
	}
	if _, err := tx.Exec(ctx, "set application_name = 'rolled_back'"); err != nil {
		return fmt.Errorf("set 2: %w", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	if err := expectAppName(ctx, conn, "committed", "after rollback"); err != nil {
		return err
	}

	// a failed statement puts the transaction in the aborted state ('E'); COMMIT then rolls back
	tx, err = conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin 3: %w", err)
	}
	if _, err := tx.Exec(ctx, "set application_name = 'aborted'"); err != nil {
		return fmt.Errorf("set 3: %w", err)
	}
	if _, err := tx.Exec(ctx, "select 1/0"); err == nil {
		return errors.New("select 1/0 succeeded")
	}
	if pc.TxStatus() != 'E' {
		return fmt.Errorf("status after error in tx %q, want 'E'", pc.TxStatus())
	}
	_, err = tx.Exec(ctx, "select $1::int4", int32(1))
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "25P02" {
		return fmt.Errorf("statement in aborted tx: want 25P02, got %v", err)
	}
	if err := tx.Commit(ctx); !errors.Is(err, pgx.ErrTxCommitRollback) {
		return fmt.Errorf("commit of failed tx: want ErrTxCommitRollback, got %v", err)
	}
	if pc.TxStatus() != 'I' {
		return fmt.Errorf("status after commit of failed tx %q, want 'I'", pc.TxStatus())
	}
	if err := expectAppName(ctx, conn, "committed", "after failed transaction"); err != nil {
		return err
	}

	// explicit isolation level and access mode (begin isolation level ... read only)
	tx, err = conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("begin repeatable read: %w", err)
	}
	var iso, ro string
	if err := tx.QueryRow(ctx, "show transaction_isolation").Scan(&iso); err != nil {
		tx.Rollback(ctx)
		return fmt.Errorf("show transaction_isolation: %w", err)
	}
	if err := tx.QueryRow(ctx, "show transaction_read_only").Scan(&ro); err != nil {
		tx.Rollback(ctx)
		return fmt.Errorf("show transaction_read_only: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit read only: %w", err)
	}
	return firstErr(expectEq("isolation", iso, "repeatable read"), expectEq("read only", ro, "on"))
}

// Nested pgx transactions = savepoint sp_N / rollback to savepoint / release savepoint.
func checkSavepoints(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	pc := conn.PgConn()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, "set application_name = 'outer'"); err != nil {
		return fmt.Errorf("set outer: %w", err)
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	if _, err := sp.Exec(ctx, "set application_name = 'inner'"); err != nil {
		return fmt.Errorf("set inner: %w", err)
	}
	if _, err := sp.Exec(ctx, "select 1/0"); err == nil {
		return errors.New("select 1/0 succeeded")
	}
	if pc.TxStatus() != 'E' {
		return fmt.Errorf("status after error in savepoint %q, want 'E'", pc.TxStatus())
	}
	if err := sp.Rollback(ctx); err != nil {
		return fmt.Errorf("rollback to savepoint: %w", err)
	}
	if pc.TxStatus() != 'T' {
		return fmt.Errorf("status after rollback to savepoint %q, want 'T'", pc.TxStatus())
	}
	if v, err := showAppName(ctx, tx); err != nil || v != "outer" {
		return fmt.Errorf("application_name after rollback to savepoint: %q, %v (want outer)", v, err)
	}
	sp2, err := tx.Begin(ctx)
	if err != nil {
		return fmt.Errorf("savepoint 2: %w", err)
	}
	sp3, err := sp2.Begin(ctx)
	if err != nil {
		return fmt.Errorf("savepoint 3: %w", err)
	}
	if _, err := sp3.Exec(ctx, "set application_name = 'released'"); err != nil {
		return fmt.Errorf("set released: %w", err)
	}
	if err := sp3.Commit(ctx); err != nil {
		return fmt.Errorf("release savepoint 3: %w", err)
	}
	if err := sp2.Commit(ctx); err != nil {
		return fmt.Errorf("release savepoint 2: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return expectAppName(ctx, conn, "released", "after commit")
}
