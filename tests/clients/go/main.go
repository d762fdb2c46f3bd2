// clienttest: pgx v5 checks against a PostgreSQL-compatible server.
//
// Usage: clienttest [-dsn URL] [-list] [check ...]
//
// The DSN comes from -dsn or the PGURL environment variable (a libpq URI such as
// postgresql://postgres@127.0.0.1:5432/postgres). With no check names every check
// runs. Each check prints "ok <name>" or "FAIL <name>: <error>"; the exit status is
// 1 when any check failed, 2 on usage errors.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

const checkTimeout = 20 * time.Second

type check struct {
	name string
	fn   func(ctx context.Context, dsn string) error
}

var checks = []check{
	{"connect", checkConnect},
	{"simple_protocol", checkSimpleProtocol},
	{"simple_protocol_table", checkSimpleProtocolTable},
	{"ping", checkPing},
	{"params_binary", checkParamsBinary},
	{"params_text", checkParamsText},
	{"results_text_format", checkResultsText},
	{"numeric", checkNumeric},
	{"null_params", checkNullParams},
	{"statement_cache", checkStatementCache},
	{"statement_cache_table", checkStatementCacheTable},
	{"prepare_describe", checkPrepareDescribe},
	{"exec_mode_exec", checkExecModeExec},
	{"batch", checkBatch},
	{"batch_table", checkBatchTable},
	{"transactions", checkTransactions},
	{"transactions_table", checkTransactionsTable},
	{"savepoints", checkSavepoints},
	{"savepoints_table", checkSavepointsTable},
	{"errors_sqlstate", checkErrors},
	{"listen_notify", checkListenNotify},
	{"copy_from_table", checkCopyFrom},
	{"libpq_default_sslmode", checkLibpqDefaultSslmode},
	{"tls_require", checkTLSRequire},
}

func main() {
	dsnFlag := flag.String("dsn", "", "connection URI (default: $PGURL)")
	list := flag.Bool("list", false, "print the check names and exit")
	flag.Parse()
	if *list {
		for _, c := range checks {
			fmt.Println(c.name)
		}
		return
	}
	dsn := *dsnFlag
	if dsn == "" {
		dsn = os.Getenv("PGURL")
	}
	if dsn == "" {
		fmt.Fprintln(os.Stderr, "clienttest: no DSN (use -dsn or PGURL)")
		os.Exit(2)
	}
	selected := checks
	if flag.NArg() > 0 {
		byName := map[string]check{}
		for _, c := range checks {
			byName[c.name] = c
		}
		selected = nil
		for _, n := range flag.Args() {
			c, ok := byName[n]
			if !ok {
				fmt.Fprintf(os.Stderr, "clienttest: unknown check %q\n", n)
				os.Exit(2)
			}
			selected = append(selected, c)
		}
	}
	failed := 0
	for _, c := range selected {
		if err := runCheck(c, dsn); err != nil {
			failed++
			fmt.Printf("FAIL %s: %s\n", c.name, oneLine(err))
		} else {
			fmt.Printf("ok %s\n", c.name)
		}
	}
	if failed > 0 {
		os.Exit(1)
	}
}

func runCheck(c check, dsn string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	return c.fn(ctx, dsn)
}

func oneLine(err error) string {
	s := err.Error()
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		s += fmt.Sprintf(" [SQLSTATE %s]", pgErr.Code)
	}
	return strings.ReplaceAll(s, "\n", " | ")
}

// withConnectTimeout adds connect_timeout=10 unless the DSN has one.
func withConnectTimeout(dsn string, extra ...string) string {
	params := extra
	if !strings.Contains(dsn, "connect_timeout") {
		params = append(params, "connect_timeout=10")
	}
	if len(params) == 0 {
		return dsn
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + strings.Join(params, "&")
}

func connect(ctx context.Context, dsn string, extra ...string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(withConnectTimeout(dsn, extra...))
	if err != nil {
		return nil, err
	}
	return pgx.ConnectConfig(ctx, cfg)
}

func closeConn(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.Close(ctx)
}

// uniqueName makes table names distinct between concurrent runs.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s_%d_%d", prefix, os.Getpid(), time.Now().UnixNano()%1000000)
}

func expectEq[T comparable](what string, got, want T) error {
	if got != want {
		return fmt.Errorf("%s: got %v, want %v", what, got, want)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// ---------------------------------------------------------------- checks

func checkConnect(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	pc := conn.PgConn()
	if v := pc.ParameterStatus("server_version"); v == "" {
		return errors.New("no server_version ParameterStatus")
	}
	if err := firstErr(
		expectEq("standard_conforming_strings", pc.ParameterStatus("standard_conforming_strings"), "on"),
		expectEq("client_encoding", pc.ParameterStatus("client_encoding"), "UTF8"),
	); err != nil {
		return err
	}
	if pc.PID() == 0 {
		return errors.New("BackendKeyData missing (PID 0)")
	}
	var one int32
	if err := conn.QueryRow(ctx, "select 1").Scan(&one); err != nil {
		return fmt.Errorf("select 1: %w", err)
	}
	if err := expectEq("select 1", one, int32(1)); err != nil {
		return err
	}
	if pc.TxStatus() != 'I' {
		return fmt.Errorf("ReadyForQuery status %q after select, want 'I'", pc.TxStatus())
	}
	return nil
}

func checkSimpleProtocolTable(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn, "default_query_exec_mode=simple_protocol")
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	tbl := uniqueName("pgx_simple")
	if _, err := conn.Exec(ctx, "create table "+tbl+" (id int primary key, name text, amount numeric(10,2), flag bool)"); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	defer conn.Exec(context.Background(), "drop table "+tbl)
	tag, err := conn.Exec(ctx, "insert into "+tbl+" (id, name, amount, flag) values ($1, $2, $3, $4), ($5, $6, $7, $8)",
		1, "it's one", "12.50", true, 2, "two", "-3.25", false)
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	if err := expectEq("insert tag", tag.String(), "INSERT 0 2"); err != nil {
		return err
	}
	var name string
	var amount pgtype.Numeric
	var flag bool
	// pgx interpolates the argument as a literal: id = '1'
	if err := conn.QueryRow(ctx, "select name, amount, flag from "+tbl+" where id = $1", 1).Scan(&name, &amount, &flag); err != nil {
		return fmt.Errorf("select by id: %w", err)
	}
	if err := firstErr(expectEq("name", name, "it's one"), expectEq("flag", flag, true)); err != nil {
		return err
	}
	f, _ := amount.Float64Value()
	if err := expectEq("amount", f.Float64, 12.5); err != nil {
		return err
	}
	var sum int64
	var txt string
	var ts time.Time
	want := time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)
	if err := conn.QueryRow(ctx, "select $1::int8 + 1, $2::text, $3::timestamptz", int64(41), "a'b\\c", want).Scan(&sum, &txt, &ts); err != nil {
		return fmt.Errorf("select params: %w", err)
	}
	if err := firstErr(expectEq("sum", sum, int64(42)), expectEq("text", txt, "a'b\\c"), expectEq("timestamptz", ts.UTC(), want)); err != nil {
		return err
	}
	tag, err = conn.Exec(ctx, "update "+tbl+" set amount = amount + $1 where id = $2", "1.25", 2)
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	return expectEq("update tag", tag.String(), "UPDATE 1")
}

func checkPing(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	for i := 0; i < 3; i++ {
		if err := conn.Ping(ctx); err != nil {
			return fmt.Errorf("ping %d: %w", i, err)
		}
	}
	// the connection is still usable after the empty queries
	var n int32
	if err := conn.QueryRow(ctx, "select 7").Scan(&n); err != nil {
		return fmt.Errorf("query after ping: %w", err)
	}
	return expectEq("select 7", n, int32(7))
}

type typedValues struct {
	i4  int32
	i8  int64
	f8  float64
	b   bool
	t   string
	ts  time.Time
	ba  []byte
	num pgtype.Numeric
}

const typedQuery = "select $1::int4, $2::int8, $3::float8, $4::bool, $5::text, $6::timestamptz, $7::bytea, $8::numeric"

func compareTyped(got typedValues, wantTs time.Time) error {
	if err := firstErr(
		expectEq("int4", got.i4, int32(-123456)),
		expectEq("int8", got.i8, int64(1)<<40),
		expectEq("float8", got.f8, 2.5),
		expectEq("bool", got.b, true),
		expectEq("text", got.t, "héllo wörld"),
		expectEq("timestamptz", got.ts.UTC(), wantTs),
	); err != nil {
		return err
	}
	if !bytes.Equal(got.ba, []byte{0, 1, 2, 0xfe, 0xff}) {
		return fmt.Errorf("bytea: got %x", got.ba)
	}
	nv, err := got.num.Value()
	if err != nil {
		return fmt.Errorf("numeric value: %w", err)
	}
	return expectEq("numeric", fmt.Sprint(nv), "12345.678")
}

func scanTyped(row pgx.Row) (typedValues, error) {
	var v typedValues
	err := row.Scan(&v.i4, &v.i8, &v.f8, &v.b, &v.t, &v.ts, &v.ba, &v.num)
	return v, err
}

func typedArgs(ts time.Time) []any {
	num := pgtype.Numeric{Int: big.NewInt(12345678), Exp: -3, Valid: true}
	return []any{int32(-123456), int64(1) << 40, 2.5, true, "héllo wörld", ts, []byte{0, 1, 2, 0xfe, 0xff}, num}
}

// Binary parameters (pgx encodes int/float/bool/timestamptz/bytea/numeric in binary) and
// the default per-column result formats (binary where pgx supports it).
func checkParamsBinary(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	ts := time.Date(2024, 2, 29, 23, 59, 58, 654321000, time.UTC)
	v, err := scanTyped(conn.QueryRow(ctx, typedQuery, typedArgs(ts)...))
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	return compareTyped(v, ts)
}

// Text parameters: Go strings are always sent in text format, whatever the parameter type.
func checkParamsText(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	ts := time.Date(2024, 2, 29, 23, 59, 58, 654321000, time.UTC)
	args := []any{"-123456", "1099511627776", "2.5", "true", "héllo wörld", "2024-03-01 01:59:58.654321+02", "\\x000102feff", "12345.678"}
	v, err := scanTyped(conn.QueryRow(ctx, typedQuery, args...))
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	return compareTyped(v, ts)
}

// All result columns requested in text format.
func checkResultsText(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	ts := time.Date(2024, 2, 29, 23, 59, 58, 654321000, time.UTC)
	args := append([]any{pgx.QueryResultFormats{pgx.TextFormatCode}}, typedArgs(ts)...)
	v, err := scanTyped(conn.QueryRow(ctx, typedQuery, args...))
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	if err := compareTyped(v, ts); err != nil {
		return err
	}
	// and raw text of a few values, read straight from the wire
	rows, err := conn.Query(ctx, "select 1.50::numeric(5,2), true, 'x'::varchar(3), 42::int8", pgx.QueryResultFormats{pgx.TextFormatCode})
	if err != nil {
		return fmt.Errorf("raw text query: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return fmt.Errorf("raw text query: no row (%v)", rows.Err())
	}
	raw := rows.RawValues()
	got := []string{}
	for _, r := range raw {
		got = append(got, string(r))
	}
	rows.Close()
	return expectEq("raw text values", strings.Join(got, ","), "1.50,t,x,42")
}

func checkNumeric(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	cases := []string{"0", "-0.000123", "123456789012345678901234567890.123456789", "0.00000000000000000001", "99999.99", "-5"}
	for _, c := range cases {
		var n pgtype.Numeric
		if err := n.Scan(c); err != nil {
			return fmt.Errorf("parse %s: %w", c, err)
		}
		var back pgtype.Numeric
		var asText string
		if err := conn.QueryRow(ctx, "select $1::numeric, $1::numeric::text", n).Scan(&back, &asText); err != nil {
			return fmt.Errorf("numeric %s: %w", c, err)
		}
		var want pgtype.Numeric
		if err := conn.QueryRow(ctx, "select $1::numeric", pgx.QueryExecModeSimpleProtocol, c).Scan(&want); err != nil {
			return fmt.Errorf("numeric %s (simple): %w", c, err)
		}
		bv, _ := back.Value()
		wv, _ := want.Value()
		if fmt.Sprint(bv) != fmt.Sprint(wv) {
			return fmt.Errorf("numeric %s: binary round trip %v, literal %v", c, bv, wv)
		}
		_ = asText
	}
	var total pgtype.Numeric
	if err := conn.QueryRow(ctx, "select 10.25::numeric(10,2) * 4").Scan(&total); err != nil {
		return fmt.Errorf("numeric arithmetic: %w", err)
	}
	tv, _ := total.Value()
	return expectEq("10.25*4", fmt.Sprint(tv), "41.00")
}

func checkNullParams(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	var a *int32
	var b *string
	var c pgtype.Timestamptz
	if err := conn.QueryRow(ctx, "select $1::int4, $2::text, $3::timestamptz", nil, nil, nil).Scan(&a, &b, &c); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	if a != nil || b != nil || c.Valid {
		return fmt.Errorf("expected NULLs, got %v %v %v", a, b, c)
	}
	var isNull bool
	if err := conn.QueryRow(ctx, "select $1::int8 is null", nil).Scan(&isNull); err != nil {
		return fmt.Errorf("is null: %w", err)
	}
	return expectEq("$1 is null", isNull, true)
}

// Default exec mode: every query is prepared as a named statement (stmtcache_*) and reused.
func checkStatementCacheTable(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	tbl := uniqueName("pgx_cache")
	if _, err := conn.Exec(ctx, "create table "+tbl+" (id int8 primary key, v text, n int4)"); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	defer conn.Exec(context.Background(), "drop table "+tbl)
	for i := int64(1); i <= 10; i++ {
		if _, err := conn.Exec(ctx, "insert into "+tbl+" (id, v, n) values ($1, $2, $3)", i, fmt.Sprintf("v%d", i), int32(i*10)); err != nil {
			return fmt.Errorf("insert %d: %w", i, err)
		}
	}
	for i := int64(1); i <= 10; i++ {
		var v string
		var n int32
		if err := conn.QueryRow(ctx, "select v, n from "+tbl+" where id = $1", i).Scan(&v, &n); err != nil {
			return fmt.Errorf("select %d: %w", i, err)
		}
		if err := firstErr(expectEq("v", v, fmt.Sprintf("v%d", i)), expectEq("n", n, int32(i*10))); err != nil {
			return err
		}
	}
	tag, err := conn.Exec(ctx, "update "+tbl+" set n = n + $1 where id > $2", int32(1), int64(5))
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if err := expectEq("update tag", tag.String(), "UPDATE 5"); err != nil {
		return err
	}
	rows, err := conn.Query(ctx, "select id, n from "+tbl+" where id in ($1, $2, $3) order by id desc", int64(2), int64(6), int64(9))
	if err != nil {
		return fmt.Errorf("select in: %w", err)
	}
	type pair struct {
		ID int64
		N  int32
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[pair])
	if err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	return expectEq("rows", fmt.Sprint(got), "[{9 91} {6 61} {2 20}]")
}

// Named prepared statement + Describe: parameter and result OIDs.
func checkPrepareDescribe(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	sd, err := conn.Prepare(ctx, "tg_stmt", "select $1::int8 * 2 as doubled, $2::text as label, $3::bool as flag, now() as ts")
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	if err := expectEq("param OIDs", fmt.Sprint(sd.ParamOIDs), "[20 25 16]"); err != nil {
		return err
	}
	var names, oids []string
	for _, f := range sd.Fields {
		names = append(names, f.Name)
		oids = append(oids, fmt.Sprint(f.DataTypeOID))
	}
	if err := firstErr(
		expectEq("field names", strings.Join(names, ","), "doubled,label,flag,ts"),
		expectEq("field OIDs", strings.Join(oids, ","), "20,25,16,1184"),
	); err != nil {
		return err
	}
	for i := int64(0); i < 5; i++ {
		var d int64
		var l string
		var f bool
		var ts time.Time
		if err := conn.QueryRow(ctx, "tg_stmt", i, fmt.Sprint("n", i), i%2 == 0).Scan(&d, &l, &f, &ts); err != nil {
			return fmt.Errorf("execute %d: %w", i, err)
		}
		if err := firstErr(expectEq("doubled", d, 2*i), expectEq("label", l, fmt.Sprint("n", i)), expectEq("flag", f, i%2 == 0)); err != nil {
			return err
		}
	}
	// a statement without parameters/results: Describe answers NoData
	sd2, err := conn.Prepare(ctx, "tg_nodata", "set application_name = 'pgx_test'")
	if err != nil {
		return fmt.Errorf("prepare SET: %w", err)
	}
	if len(sd2.Fields) != 0 || len(sd2.ParamOIDs) != 0 {
		return fmt.Errorf("SET statement described with fields %v params %v", sd2.Fields, sd2.ParamOIDs)
	}
	if _, err := conn.Exec(ctx, "tg_nodata"); err != nil {
		return fmt.Errorf("exec SET: %w", err)
	}
	if err := expectEq("application_name ParameterStatus", conn.PgConn().ParameterStatus("application_name"), "pgx_test"); err != nil {
		return err
	}
	if err := conn.Deallocate(ctx, "tg_stmt"); err != nil {
		return fmt.Errorf("deallocate: %w", err)
	}
	_, err = conn.Exec(ctx, "tg_stmt", int64(1), "x", true)
	if err == nil {
		return errors.New("executing a deallocated statement succeeded")
	}
	return nil
}

// QueryExecModeExec: unnamed statement, parameters in text format with OIDs from the Describe.
func checkExecModeExec(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn, "default_query_exec_mode=exec")
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	ts := time.Date(2024, 2, 29, 23, 59, 58, 654321000, time.UTC)
	v, err := scanTyped(conn.QueryRow(ctx, typedQuery, typedArgs(ts)...))
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	if err := compareTyped(v, ts); err != nil {
		return err
	}
	conn2, err := connect(ctx, dsn, "default_query_exec_mode=describe_exec")
	if err != nil {
		return fmt.Errorf("connect describe_exec: %w", err)
	}
	defer closeConn(conn2)
	v, err = scanTyped(conn2.QueryRow(ctx, typedQuery, typedArgs(ts)...))
	if err != nil {
		return fmt.Errorf("describe_exec query: %w", err)
	}
	return compareTyped(v, ts)
}

func checkBatchTable(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	tbl := uniqueName("pgx_batch")
	if _, err := conn.Exec(ctx, "create table "+tbl+" (id int4 primary key, v text)"); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	defer conn.Exec(context.Background(), "drop table "+tbl)
	b := &pgx.Batch{}
	for i := int32(1); i <= 5; i++ {
		b.Queue("insert into "+tbl+" (id, v) values ($1, $2)", i, fmt.Sprint("row", i))
	}
	b.Queue("update "+tbl+" set v = v || $1 where id >= $2", "!", int32(4))
	b.Queue("select count(*) from " + tbl)
	b.Queue("select v from "+tbl+" where id = $1", int32(5))
	br := conn.SendBatch(ctx, b)
	for i := 1; i <= 5; i++ {
		tag, err := br.Exec()
		if err != nil {
			br.Close()
			return fmt.Errorf("batch insert %d: %w", i, err)
		}
		if tag.String() != "INSERT 0 1" {
			br.Close()
			return fmt.Errorf("batch insert %d tag %q", i, tag)
		}
	}
	tag, err := br.Exec()
	if err != nil {
		br.Close()
		return fmt.Errorf("batch update: %w", err)
	}
	var count int64
	if err := br.QueryRow().Scan(&count); err != nil {
		br.Close()
		return fmt.Errorf("batch count: %w", err)
	}
	var v string
	if err := br.QueryRow().Scan(&v); err != nil {
		br.Close()
		return fmt.Errorf("batch select: %w", err)
	}
	if err := br.Close(); err != nil {
		return fmt.Errorf("batch close: %w", err)
	}
	if err := firstErr(expectEq("update tag", tag.String(), "UPDATE 2"), expectEq("count", count, int64(5)), expectEq("v", v, "row5!")); err != nil {
		return err
	}
	// an error in the middle of a batch (implicit transaction): nothing of it persists
	b2 := &pgx.Batch{}
	b2.Queue("insert into "+tbl+" (id, v) values ($1, $2)", int32(100), "x")
	b2.Queue("insert into "+tbl+" (id, v) values ($1, $2)", int32(1), "duplicate")
	b2.Queue("select 1")
	err = conn.SendBatch(ctx, b2).Close()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		return fmt.Errorf("batch with duplicate key: want 23505, got %v", err)
	}
	if err := conn.QueryRow(ctx, "select count(*) from "+tbl).Scan(&count); err != nil {
		return fmt.Errorf("count after failed batch: %w", err)
	}
	return expectEq("rows after failed batch", count, int64(5))
}

func checkTransactionsTable(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	tbl := uniqueName("pgx_tx")
	if _, err := conn.Exec(ctx, "create table "+tbl+" (id int4 primary key)"); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	defer conn.Exec(context.Background(), "drop table "+tbl)

	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if conn.PgConn().TxStatus() != 'T' {
		return fmt.Errorf("status after begin %q, want 'T'", conn.PgConn().TxStatus())
	}
	if _, err := tx.Exec(ctx, "insert into "+tbl+" values ($1)", int32(1)); err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if conn.PgConn().TxStatus() != 'I' {
		return fmt.Errorf("status after commit %q, want 'I'", conn.PgConn().TxStatus())
	}

	tx, err = conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin 2: %w", err)
	}
	if _, err := tx.Exec(ctx, "insert into "+tbl+" values ($1)", int32(2)); err != nil {
		return fmt.Errorf("insert 2: %w", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}

	// a failed statement puts the transaction in the aborted state ('E'); commit then rolls back
	tx, err = conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin 3: %w", err)
	}
	if _, err := tx.Exec(ctx, "insert into "+tbl+" values ($1)", int32(3)); err != nil {
		return fmt.Errorf("insert 3: %w", err)
	}
	if _, err := tx.Exec(ctx, "insert into "+tbl+" values ($1)", int32(1)); err == nil {
		return errors.New("duplicate insert succeeded")
	}
	if conn.PgConn().TxStatus() != 'E' {
		return fmt.Errorf("status after error in tx %q, want 'E'", conn.PgConn().TxStatus())
	}
	_, err = tx.Exec(ctx, "select 1")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "25P02" {
		return fmt.Errorf("statement in aborted tx: want 25P02, got %v", err)
	}
	if err := tx.Commit(ctx); !errors.Is(err, pgx.ErrTxCommitRollback) {
		return fmt.Errorf("commit of failed tx: want ErrTxCommitRollback, got %v", err)
	}

	// explicit isolation level
	tx, err = conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("begin repeatable read: %w", err)
	}
	var iso string
	if err := tx.QueryRow(ctx, "show transaction_isolation").Scan(&iso); err != nil {
		tx.Rollback(ctx)
		return fmt.Errorf("show transaction_isolation: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit read only: %w", err)
	}
	if err := expectEq("isolation", iso, "repeatable read"); err != nil {
		return err
	}

	var ids []int32
	rows, err := conn.Query(ctx, "select id from "+tbl+" order by id")
	if err != nil {
		return fmt.Errorf("select: %w", err)
	}
	ids, err = pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	return expectEq("committed ids", fmt.Sprint(ids), "[1]")
}

func checkSavepointsTable(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	tbl := uniqueName("pgx_sp")
	if _, err := conn.Exec(ctx, "create table "+tbl+" (id int4 primary key)"); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	defer conn.Exec(context.Background(), "drop table "+tbl)

	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, "insert into "+tbl+" values (1)"); err != nil {
		return fmt.Errorf("insert 1: %w", err)
	}
	// nested tx = savepoint sp_1; rolled back
	sp, err := tx.Begin(ctx)
	if err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	if _, err := sp.Exec(ctx, "insert into "+tbl+" values (2)"); err != nil {
		return fmt.Errorf("insert 2: %w", err)
	}
	if _, err := sp.Exec(ctx, "insert into "+tbl+" values (1)"); err == nil {
		return errors.New("duplicate insert in savepoint succeeded")
	}
	if err := sp.Rollback(ctx); err != nil {
		return fmt.Errorf("rollback to savepoint: %w", err)
	}
	if conn.PgConn().TxStatus() != 'T' {
		return fmt.Errorf("status after rollback to savepoint %q, want 'T'", conn.PgConn().TxStatus())
	}
	// second savepoint, released
	sp2, err := tx.Begin(ctx)
	if err != nil {
		return fmt.Errorf("savepoint 2: %w", err)
	}
	if _, err := sp2.Exec(ctx, "insert into "+tbl+" values (3)"); err != nil {
		return fmt.Errorf("insert 3: %w", err)
	}
	sp3, err := sp2.Begin(ctx)
	if err != nil {
		return fmt.Errorf("savepoint 3: %w", err)
	}
	if _, err := sp3.Exec(ctx, "insert into "+tbl+" values (4)"); err != nil {
		return fmt.Errorf("insert 4: %w", err)
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
	rows, err := conn.Query(ctx, "select id from "+tbl+" order by id")
	if err != nil {
		return fmt.Errorf("select: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	return expectEq("committed ids", fmt.Sprint(ids), "[1 3 4]")
}

func checkErrors(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	cases := []struct {
		sql  string
		args []any
		code string
	}{
		{"select 1/0", nil, "22012"},
		{"select * from no_such_table_pgx", nil, "42P01"},
		{"selec 1", nil, "42601"},
		{"select $1::int4", []any{"not a number"}, "22P02"},
		{"select no_such_column", nil, "42703"},
	}
	for _, c := range cases {
		_, err := conn.Exec(ctx, c.sql, c.args...)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) {
			return fmt.Errorf("%q: want PgError %s, got %v", c.sql, c.code, err)
		}
		if pgErr.Code != c.code {
			return fmt.Errorf("%q: SQLSTATE %s (%s), want %s", c.sql, pgErr.Code, pgErr.Message, c.code)
		}
		if pgErr.Severity != "ERROR" || pgErr.Message == "" {
			return fmt.Errorf("%q: severity %q message %q", c.sql, pgErr.Severity, pgErr.Message)
		}
		if conn.PgConn().TxStatus() != 'I' {
			return fmt.Errorf("%q: status after error %q, want 'I'", c.sql, conn.PgConn().TxStatus())
		}
	}
	var n int32
	if err := conn.QueryRow(ctx, "select 5").Scan(&n); err != nil {
		return fmt.Errorf("query after errors: %w", err)
	}
	return expectEq("select 5", n, int32(5))
}

func checkListenNotify(ctx context.Context, dsn string) error {
	listener, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect listener: %w", err)
	}
	defer closeConn(listener)
	sender, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect sender: %w", err)
	}
	defer closeConn(sender)
	channel := uniqueName("pgx_chan")
	if _, err := listener.Exec(ctx, "listen "+channel); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	// The sender notifies once the listener is blocked in WaitForNotification (idle, no
	// query in flight). The short sleep only orders the two; the result does not depend on it.
	sendErr := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		if _, err := sender.Exec(ctx, "select pg_notify($1, $2)", channel, "payload-1"); err != nil {
			sendErr <- fmt.Errorf("pg_notify: %w", err)
			return
		}
		_, err := sender.Exec(ctx, "notify "+channel+", 'payload-2'")
		sendErr <- err
	}()
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var got []*pgconn.Notification
	for len(got) < 2 {
		n, err := listener.WaitForNotification(waitCtx)
		if err != nil {
			if e := <-sendErr; e != nil {
				return e
			}
			return fmt.Errorf("WaitForNotification after %d notifications: %w", len(got), err)
		}
		got = append(got, n)
	}
	if err := <-sendErr; err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	senderPID := sender.PgConn().PID()
	for i, n := range got {
		if err := firstErr(
			expectEq("channel", n.Channel, channel),
			expectEq("payload", n.Payload, fmt.Sprint("payload-", i+1)),
			expectEq("sender PID", n.PID, senderPID),
		); err != nil {
			return fmt.Errorf("notification %d: %w", i+1, err)
		}
	}
	// the listener connection is still usable afterwards
	var one int32
	if err := listener.QueryRow(ctx, "select 1").Scan(&one); err != nil {
		return fmt.Errorf("query on listener: %w", err)
	}
	return nil
}

func checkCopyFrom(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer closeConn(conn)
	tbl := uniqueName("pgx_copy")
	if _, err := conn.Exec(ctx, "create table "+tbl+" (id int8, name text, amount numeric(10,2), ts timestamptz)"); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	defer conn.Exec(context.Background(), "drop table "+tbl)
	ts := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	var rows [][]any
	for i := 1; i <= 100; i++ {
		rows = append(rows, []any{int64(i), fmt.Sprint("name", i), pgtype.Numeric{Int: big.NewInt(int64(i * 125)), Exp: -2, Valid: true}, ts})
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{tbl}, []string{"id", "name", "amount", "ts"}, pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("CopyFrom: %w", err)
	}
	if err := expectEq("copied", n, int64(100)); err != nil {
		return err
	}
	var count, sumID int64
	var name string
	if err := conn.QueryRow(ctx, "select count(*), sum(id), max(name) from "+tbl).Scan(&count, &sumID, &name); err != nil {
		return fmt.Errorf("select: %w", err)
	}
	return firstErr(expectEq("count", count, int64(100)), expectEq("sum", sumID, int64(5050)), expectEq("max name", name, "name99"))
}
