package threadgres.clienttest;

import java.math.BigDecimal;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TimeZone;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.postgresql.PGStatement;

/**
 * pgjdbc checks against a PostgreSQL-compatible server.
 *
 * <p>Usage: {@code java -jar clienttest.jar [--list] [URL] [check ...]}. URL is a libpq URI
 * (postgresql://user@host:port/db) or a jdbc:postgresql:// URL; without it PGURL is used.
 * With no check names every check runs. Each check prints "ok NAME" or "FAIL NAME: error";
 * the exit status is 1 when any check failed, 2 on usage errors.
 */
public final class ClientTest {
    /** The JVM zone, sent by pgjdbc as the TimeZone startup parameter. */
    static final String JVM_ZONE = "America/New_York";
    static final long CHECK_TIMEOUT_SECONDS = 30;

    interface Check {
        void run() throws Exception;
    }

    static String jdbcUrl;
    static Properties baseProps = new Properties();

    // ------------------------------------------------------------------ helpers

    static Connection connect() throws SQLException {
        return connect(new Properties());
    }

    static Connection connect(Properties extra) throws SQLException {
        Properties p = new Properties();
        p.putAll(baseProps);
        p.putAll(extra);
        return DriverManager.getConnection(jdbcUrl, p);
    }

    static void parseUrl(String url) {
        baseProps.setProperty("connectTimeout", "10");
        baseProps.setProperty("loginTimeout", "15");
        baseProps.setProperty("socketTimeout", "30");
        if (url.startsWith("jdbc:")) {
            jdbcUrl = url;
            return;
        }
        URI u = URI.create(url);
        String host = u.getHost() == null ? "127.0.0.1" : u.getHost();
        int port = u.getPort() < 0 ? 5432 : u.getPort();
        String db = u.getPath() == null || u.getPath().length() <= 1 ? "postgres" : u.getPath().substring(1);
        jdbcUrl = "jdbc:postgresql://" + host + ":" + port + "/" + db;
        String userInfo = u.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
            baseProps.setProperty("user", URLDecoder.decode(user, StandardCharsets.UTF_8));
            if (colon >= 0) {
                baseProps.setProperty("password", URLDecoder.decode(userInfo.substring(colon + 1), StandardCharsets.UTF_8));
            }
        } else {
            baseProps.setProperty("user", "postgres");
        }
    }

    static void expect(String what, Object got, Object want) {
        if (!Objects.equals(got, want)) {
            throw new AssertionError(what + ": got " + show(got) + ", want " + show(want));
        }
    }

    static String show(Object o) {
        if (o == null) return "null";
        if (o instanceof byte[]) return "bytes" + Arrays.toString((byte[]) o);
        return o + " (" + o.getClass().getSimpleName() + ")";
    }

    static void expectTrue(String what, boolean cond) {
        if (!cond) throw new AssertionError(what);
    }

    static String queryString(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            expectTrue("no row from " + sql, rs.next());
            return rs.getString(1);
        }
    }

    /** A setting read with current_setting() (SHOW has its own check). */
    static String setting(Connection c, String name) throws SQLException {
        return queryString(c, "SELECT current_setting('" + name + "')");
    }

    static SQLException expectSqlState(Connection c, String sql, String state) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            if (!state.equals(e.getSQLState())) {
                throw new AssertionError(sql + ": SQLSTATE " + e.getSQLState() + " (" + e.getMessage() + "), want " + state);
            }
            return e;
        }
        throw new AssertionError(sql + ": succeeded, want error " + state);
    }

    static String uniqueName(String prefix) {
        return prefix + "_" + ProcessHandle.current().pid() + "_" + (System.nanoTime() % 1000000);
    }

    // ------------------------------------------------------------------ checks

    static final Map<String, Check> CHECKS = new LinkedHashMap<>();

    static {
        CHECKS.put("connect", ClientTest::checkConnect);
        CHECKS.put("show_statement", ClientTest::checkShow);
        CHECKS.put("prepared_types", ClientTest::checkPreparedTypes);
        CHECKS.put("prepared_nulls", ClientTest::checkPreparedNulls);
        CHECKS.put("select_statements", ClientTest::checkSelectStatements);
        CHECKS.put("is_valid", ClientTest::checkIsValid);
        CHECKS.put("autocommit_transactions", ClientTest::checkAutocommit);
        CHECKS.put("transaction_isolation", ClientTest::checkIsolation);
        CHECKS.put("savepoints", ClientTest::checkSavepoints);
        CHECKS.put("errors_sqlstate", ClientTest::checkErrors);
        CHECKS.put("notifications", ClientTest::checkNotifications);
        CHECKS.put("dml_table", ClientTest::checkDmlTable);
        CHECKS.put("ssl_require", ClientTest::checkSslRequire);
    }

    /** ssl=true&sslmode=require (no verification of the server): the session runs over TLS. */
    static void checkSslRequire() throws Exception {
        Properties p = new Properties();
        p.setProperty("ssl", "true");
        p.setProperty("sslmode", "require");
        try (Connection c = connect(p); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(
                     "SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            expectTrue("no pg_stat_ssl row", rs.next());
            expect("pg_stat_ssl.ssl", rs.getBoolean(1), true);
            String version = rs.getString(2);
            expectTrue("TLS version " + version, version != null && version.startsWith("TLSv1."));
        }
        try (Connection c = connect(p); PreparedStatement ps = c.prepareStatement("SELECT ?::int + 1")) {
            ps.setInt(1, 41);
            try (ResultSet rs = ps.executeQuery()) {
                expectTrue("no row", rs.next());
                expect("?::int + 1", rs.getInt(1), 42);
            }
        }
    }

    /** Startup TimeZone (the JVM zone), ParameterStatus, SET application_name. */
    static void checkConnect() throws Exception {
        Properties p = new Properties();
        p.setProperty("ApplicationName", "jdbc_startup");
        try (Connection c = connect(p)) {
            String version = c.getMetaData().getDatabaseProductVersion();
            expectTrue("server version " + version, version != null && !version.isEmpty());
            expect("session TimeZone", setting(c, "TimeZone"), JVM_ZONE);
            // timestamptz text output uses the session time zone
            expect("timestamptz text in " + JVM_ZONE,
                    queryString(c, "SELECT '2024-01-15 12:00:00+00'::timestamptz::text"), "2024-01-15 07:00:00-05");
            expect("application_name", setting(c, "application_name"), "jdbc_startup");
            // setClientInfo sends SET application_name = '...'
            c.setClientInfo("ApplicationName", "jdbc_client_info");
            expect("application_name after setClientInfo", setting(c, "application_name"), "jdbc_client_info");
            expect("getClientInfo", c.getClientInfo("ApplicationName"), "jdbc_client_info");
            try (Statement st = c.createStatement()) {
                st.execute("SET application_name = 'jdbc_set'");
            }
            expect("application_name after SET", setting(c, "application_name"), "jdbc_set");
            int pid = c.unwrap(PGConnection.class).getBackendPID();
            expectTrue("backend PID " + pid, pid != 0);
        }
    }

    /** SHOW through the extended protocol (Parse/Bind/Describe portal/Execute). */
    static void checkShow() throws Exception {
        try (Connection c = connect(); Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SHOW TimeZone")) {
                expectTrue("no row", rs.next());
                expect("SHOW TimeZone", rs.getString(1), JVM_ZONE);
                expect("column label", rs.getMetaData().getColumnLabel(1), "TimeZone");
                expectTrue("more than one row", !rs.next());
            }
            expect("SHOW application_name", queryString(c, "SHOW application_name"), "PostgreSQL JDBC Driver");
            expect("SHOW standard_conforming_strings", queryString(c, "SHOW standard_conforming_strings"), "on");
            expect("SHOW TRANSACTION ISOLATION LEVEL", queryString(c, "SHOW TRANSACTION ISOLATION LEVEL"), "read committed");
            try (PreparedStatement ps = c.prepareStatement("SHOW client_encoding")) {
                for (int i = 0; i < 6; i++) {
                    try (ResultSet rs = ps.executeQuery()) {
                        expectTrue("no row", rs.next());
                        expect("SHOW client_encoding run " + (i + 1), rs.getString(1), "UTF8");
                    }
                }
            }
        }
    }

    /**
     * PreparedStatement with typed parameters (int4, int8, numeric, float8, bool, varchar,
     * unspecified timestamp, bytea). Run 8 times: from the 5th execution (prepareThreshold=5)
     * pgjdbc uses a named server statement S_n and binary results.
     */
    static void checkPreparedTypes() throws Exception {
        try (Connection c = connect()) {
            String sql = "SELECT ? AS i4, ? AS i8, ? AS num, ? AS f8, ? AS b, ? AS s, "
                    + "?::timestamptz AS tstz, ?::timestamp AS ts, ? AS bytes, ?::int4 * 2 AS doubled";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < 8; i++) {
                    int i4 = -100000 + i;
                    long i8 = (1L << 40) + i;
                    BigDecimal num = new BigDecimal("12345.6789").add(BigDecimal.valueOf(i));
                    double f8 = 0.1 + i;
                    boolean b = i % 2 == 0;
                    String s = "héllo " + i;
                    Timestamp tstz = Timestamp.valueOf("2024-02-29 23:59:58.123456");
                    tstz.setTime(tstz.getTime() + i * 1000L);
                    tstz.setNanos(123456000);
                    Timestamp ts = Timestamp.valueOf("2023-06-07 08:09:10.5");
                    byte[] bytes = {0, 1, (byte) 0xfe, (byte) i};
                    ps.setInt(1, i4);
                    ps.setLong(2, i8);
                    ps.setBigDecimal(3, num);
                    ps.setDouble(4, f8);
                    ps.setBoolean(5, b);
                    ps.setString(6, s);
                    ps.setTimestamp(7, tstz);
                    ps.setTimestamp(8, ts);
                    ps.setBytes(9, bytes);
                    ps.setInt(10, i);
                    String run = "run " + (i + 1) + ": ";
                    try (ResultSet rs = ps.executeQuery()) {
                        expectTrue(run + "no row", rs.next());
                        expect(run + "int4", rs.getInt("i4"), i4);
                        expect(run + "int8", rs.getLong("i8"), i8);
                        expect(run + "numeric", rs.getBigDecimal("num"), num);
                        expect(run + "float8", rs.getDouble("f8"), f8);
                        expect(run + "bool", rs.getBoolean("b"), b);
                        expect(run + "varchar", rs.getString("s"), s);
                        expect(run + "timestamptz", rs.getTimestamp("tstz"), tstz);
                        expect(run + "timestamp", rs.getTimestamp("ts"), ts);
                        expect(run + "bytea", Arrays.toString(rs.getBytes("bytes")), Arrays.toString(bytes));
                        expect(run + "doubled", rs.getInt("doubled"), 2 * i);
                        expectTrue(run + "more than one row", !rs.next());
                        if (i == 7) {
                            ResultSetMetaData md = rs.getMetaData();
                            List<String> types = new ArrayList<>();
                            for (int col = 1; col <= md.getColumnCount(); col++) types.add(md.getColumnTypeName(col));
                            expect("column types", types.toString(),
                                    "[int4, int8, numeric, float8, bool, varchar, timestamptz, timestamp, bytea, int4]");
                        }
                    }
                }
                expectTrue("statement did not switch to a server-prepared statement",
                        ps.unwrap(PGStatement.class).isUseServerPrepare());
            }
            // a second statement, forced server-prepared from its first execution
            try (PreparedStatement ps = c.prepareStatement("SELECT ?::numeric(10,2) + 1 AS n, ?::float8 * 2 AS f")) {
                ps.unwrap(PGStatement.class).setPrepareThreshold(1);
                for (int i = 0; i < 3; i++) {
                    ps.setBigDecimal(1, new BigDecimal("-0.005"));
                    ps.setDouble(2, 1.25);
                    try (ResultSet rs = ps.executeQuery()) {
                        expectTrue("no row", rs.next());
                        expect("numeric(10,2) + 1", rs.getBigDecimal(1), new BigDecimal("0.99"));
                        expect("float8 * 2", rs.getDouble(2), 2.5);
                    }
                }
            }
        }
    }

    static void checkPreparedNulls() throws Exception {
        try (Connection c = connect()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT ?::int4 AS a, ?::text AS b, ?::timestamptz AS c, ?::numeric IS NULL AS d")) {
                for (int i = 0; i < 6; i++) {
                    ps.setNull(1, java.sql.Types.INTEGER);
                    ps.setNull(2, java.sql.Types.VARCHAR);
                    ps.setNull(3, java.sql.Types.TIMESTAMP);
                    ps.setBigDecimal(4, null);
                    try (ResultSet rs = ps.executeQuery()) {
                        expectTrue("no row", rs.next());
                        rs.getInt(1);
                        expectTrue("int4 not null", rs.wasNull());
                        expect("text", rs.getString(2), null);
                        expect("timestamptz", rs.getTimestamp(3), null);
                        expect("is null", rs.getBoolean(4), true);
                    }
                }
            }
        }
    }

    /** Plain Statement.executeQuery / execute (extended protocol, unnamed statement). */
    static void checkSelectStatements() throws Exception {
        try (Connection c = connect(); Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT 1 AS one, 'two' AS two, 3.5 AS three, true AS four, NULL AS five")) {
                expectTrue("no row", rs.next());
                expect("one", rs.getObject(1), 1);
                expect("two", rs.getObject(2), "two");
                expect("three", rs.getObject(3), new BigDecimal("3.5"));
                expect("four", rs.getObject(4), Boolean.TRUE);
                expect("five", rs.getObject(5), null);
                expect("label", rs.getMetaData().getColumnLabel(2), "two");
            }
            try (ResultSet rs = st.executeQuery("SELECT g, g * g AS sq FROM generate_series(1, 5) AS g ORDER BY g DESC")) {
                List<String> rows = new ArrayList<>();
                while (rs.next()) rows.add(rs.getInt(1) + ":" + rs.getLong(2));
                expect("rows", rows.toString(), "[5:25, 4:16, 3:9, 2:4, 1:1]");
            }
            try (ResultSet rs = st.executeQuery("SELECT now() AS n, count(*) AS cnt")) {
                expectTrue("no row", rs.next());
                expectTrue("now() not a timestamp", rs.getTimestamp(1) != null);
                expect("count(*)", rs.getObject(2), 1L);
            }
            // several statements in one execute(): one result each
            expectTrue("first result is not a result set", st.execute("SELECT 1; SELECT 2, 3; SET application_name = 'jdbc_multi'"));
            try (ResultSet rs = st.getResultSet()) {
                rs.next();
                expect("first", rs.getInt(1), 1);
            }
            expectTrue("second result is not a result set", st.getMoreResults());
            try (ResultSet rs = st.getResultSet()) {
                rs.next();
                expect("second", rs.getInt(2), 3);
            }
            expectTrue("third result is a result set", !st.getMoreResults());
            expect("SET update count", st.getUpdateCount(), 0);
            expect("application_name", setting(c, "application_name"), "jdbc_multi");
            // fetch size in autocommit mode still returns all rows
            st.setFetchSize(2);
            try (ResultSet rs = st.executeQuery("SELECT g FROM generate_series(1, 7) AS g")) {
                int n = 0;
                while (rs.next()) n++;
                expect("rows with fetch size", n, 7);
            }
        }
    }

    /** isValid() sends an empty query string. */
    static void checkIsValid() throws Exception {
        try (Connection c = connect()) {
            for (int i = 0; i < 3; i++) {
                expectTrue("isValid returned false", c.isValid(5));
            }
            expect("query after isValid", queryString(c, "SELECT 'still here'"), "still here");
            try (Statement st = c.createStatement()) {
                expectTrue("empty statement returned a result set", !st.execute(""));
            }
        }
    }

    /** setAutoCommit(false): pgjdbc sends BEGIN in front of the first statement (one pipeline). */
    static void checkAutocommit() throws Exception {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute("SET application_name = 'committed'");
                c.commit();
                expect("after commit", setting(c, "application_name"), "committed");
                c.commit();
                st.execute("SET application_name = 'rolled_back'");
                expect("inside transaction", setting(c, "application_name"), "rolled_back");
                c.rollback();
                expect("after rollback", setting(c, "application_name"), "committed");
                c.rollback();
                // an error aborts the transaction: the next statement fails with 25P02
                expectSqlState(c, "SELECT 1/0", "22012");
                expectSqlState(c, "SELECT 1", "25P02");
                c.rollback();
                try (PreparedStatement ps = c.prepareStatement("SELECT ?::int + 1")) {
                    for (int i = 0; i < 6; i++) {
                        ps.setInt(1, i);
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            expect("prepared in transaction", rs.getInt(1), i + 1);
                        }
                        if (i % 2 == 0) c.commit(); else c.rollback();
                    }
                }
                c.setAutoCommit(true);
                expect("autocommit again", queryString(c, "SELECT 'ok'"), "ok");
            }
        }
    }

    /** setTransactionIsolation / setReadOnly send SET SESSION CHARACTERISTICS AS TRANSACTION ... */
    static void checkIsolation() throws Exception {
        try (Connection c = connect()) {
            expect("default isolation", c.getTransactionIsolation(), Connection.TRANSACTION_READ_COMMITTED);
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            expect("getTransactionIsolation", c.getTransactionIsolation(), Connection.TRANSACTION_SERIALIZABLE);
            expect("default_transaction_isolation", setting(c, "default_transaction_isolation"), "serializable");
            c.setAutoCommit(false);
            expect("transaction_isolation in a transaction", setting(c, "transaction_isolation"), "serializable");
            c.commit();
            c.setAutoCommit(true);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            expect("repeatable read", c.getTransactionIsolation(), Connection.TRANSACTION_REPEATABLE_READ);
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            expect("read committed", setting(c, "default_transaction_isolation"), "read committed");
            // read-only transactions: with autocommit off pgjdbc starts them with BEGIN READ ONLY
            c.setAutoCommit(false);
            c.setReadOnly(true);
            expect("read only transaction", setting(c, "transaction_read_only"), "on");
            c.commit();
            c.setReadOnly(false);
            expect("read write transaction", setting(c, "transaction_read_only"), "off");
            c.commit();
            c.setAutoCommit(true);
            try (Statement st = c.createStatement()) {
                st.execute("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            }
            expect("SQL SET SESSION CHARACTERISTICS", setting(c, "default_transaction_isolation"), "repeatable read");
        }
    }

    static void checkSavepoints() throws Exception {
        try (Connection c = connect(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("SET application_name = 'outer'");
            Savepoint sp = c.setSavepoint("sp_a");
            st.execute("SET application_name = 'inner'");
            expectSqlState(c, "SELECT 1/0", "22012");
            c.rollback(sp);
            expect("after rollback to savepoint", setting(c, "application_name"), "outer");
            Savepoint sp2 = c.setSavepoint();
            Savepoint sp3 = c.setSavepoint("sp_c");
            st.execute("SET application_name = 'released'");
            c.releaseSavepoint(sp3);
            c.releaseSavepoint(sp2);
            c.commit();
            c.setAutoCommit(true);
            expect("after commit", setting(c, "application_name"), "released");
        }
    }

    static void checkErrors() throws Exception {
        try (Connection c = connect()) {
            expectSqlState(c, "SELECT 1/0", "22012");
            expectSqlState(c, "SELECT * FROM no_such_table_jdbc", "42P01");
            expectSqlState(c, "SELEC 1", "42601");
            expectSqlState(c, "SELECT 'abc'::int", "22P02");
            expectSqlState(c, "SELECT no_such_column", "42703");
            try (PreparedStatement ps = c.prepareStatement("SELECT 10 / ?")) {
                for (int i = 0; i < 6; i++) {
                    ps.setInt(1, i % 2);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        expectTrue("10 / 0 succeeded", i % 2 == 1);
                        expect("10 / 1", rs.getInt(1), 10);
                    } catch (SQLException e) {
                        expectTrue("error for 10 / 1: " + e.getMessage(), i % 2 == 0);
                        expect("SQLSTATE", e.getSQLState(), "22012");
                    }
                }
            }
            expect("query after errors", queryString(c, "SELECT 'fine'"), "fine");
        }
    }

    static void checkNotifications() throws Exception {
        try (Connection listener = connect(); Connection sender = connect()) {
            String channel = uniqueName("jdbc_chan");
            try (Statement st = listener.createStatement()) {
                st.execute("LISTEN " + channel);
            }
            PGConnection pgListener = listener.unwrap(PGConnection.class);
            // the listener is idle now; notify from the other connection
            try (PreparedStatement ps = sender.prepareStatement("SELECT pg_notify(?, ?)")) {
                ps.setString(1, channel);
                ps.setString(2, "payload-1");
                ps.execute();
            }
            try (Statement st = sender.createStatement()) {
                st.execute("NOTIFY " + channel + ", 'payload-2'");
            }
            int senderPid = sender.unwrap(PGConnection.class).getBackendPID();
            List<PGNotification> got = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (got.size() < 2 && System.nanoTime() < deadline) {
                PGNotification[] ns = pgListener.getNotifications(1000);
                if (ns != null) got.addAll(Arrays.asList(ns));
            }
            expect("notifications received within 10s", got.size(), 2);
            for (int i = 0; i < 2; i++) {
                PGNotification n = got.get(i);
                expect("channel", n.getName(), channel);
                expect("payload", n.getParameter(), "payload-" + (i + 1));
                expect("sender PID", n.getPID(), senderPid);
            }
            expect("listener still usable", queryString(listener, "SELECT 'ok'"), "ok");
        }
    }

    /** executeUpdate (Execute with max_rows=1 for DML), generated keys, batches. */
    static void checkDmlTable() throws Exception {
        String t = uniqueName("jdbc_dml");
        try (Connection c = connect(); Statement st = c.createStatement()) {
            st.executeUpdate("CREATE TABLE " + t + " (id serial PRIMARY KEY, name varchar(20) NOT NULL, amount numeric(10,2), ts timestamp)");
            try {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + " (name, amount, ts) VALUES (?, ?, ?)",
                        Statement.RETURN_GENERATED_KEYS)) {
                    for (int i = 1; i <= 7; i++) {
                        ps.setString(1, "n" + i);
                        ps.setBigDecimal(2, new BigDecimal(i + ".25"));
                        ps.setTimestamp(3, Timestamp.valueOf("2024-01-0" + i + " 10:00:00"));
                        expect("insert count", ps.executeUpdate(), 1);
                        try (ResultSet keys = ps.getGeneratedKeys()) {
                            expectTrue("no generated key", keys.next());
                            expect("generated id", keys.getInt("id"), i);
                        }
                    }
                }
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + t + " SET amount = amount + ? WHERE id > ?")) {
                    ps.setBigDecimal(1, new BigDecimal("1.00"));
                    ps.setInt(2, 2);
                    expect("update count (max_rows=1 must not limit DML)", ps.executeUpdate(), 5);
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + " (name) VALUES (?)")) {
                    for (int i = 0; i < 3; i++) {
                        ps.setString(1, "batch" + i);
                        ps.addBatch();
                    }
                    expect("batch counts", Arrays.toString(ps.executeBatch()), "[1, 1, 1]");
                }
                c.setAutoCommit(false);
                expect("delete in transaction", st.executeUpdate("DELETE FROM " + t + " WHERE name LIKE 'batch%'"), 3);
                c.rollback();
                c.setAutoCommit(true);
                try (ResultSet rs = st.executeQuery("SELECT count(*), sum(amount) FROM " + t)) {
                    rs.next();
                    expect("count", rs.getLong(1), 10L);
                    expect("sum", rs.getBigDecimal(2), new BigDecimal("34.75"));
                }
                expectSqlState(c, "INSERT INTO " + t + " (id, name) VALUES (1, 'dup')", "23505");
            } finally {
                st.execute("DROP TABLE IF EXISTS " + t);
            }
        }
    }

    // ------------------------------------------------------------------ main

    static String describe(Throwable e) {
        if (e instanceof java.util.concurrent.ExecutionException && e.getCause() != null) e = e.getCause();
        String s = e.getClass().getSimpleName() + ": " + e.getMessage();
        if (e.getMessage() == null) {
            // e.g. a driver-internal NoSuchElementException: say where the driver tripped
            for (StackTraceElement frame : e.getStackTrace()) {
                if (frame.getClassName().startsWith("org.postgresql")) {
                    s += " at " + frame;
                    break;
                }
            }
        }
        if (e instanceof SQLException && ((SQLException) e).getSQLState() != null) {
            s += " [SQLSTATE " + ((SQLException) e).getSQLState() + "]";
        }
        return s.replaceAll("\\s*\\n\\s*", " | ");
    }

    public static void main(String[] args) throws Exception {
        TimeZone.setDefault(TimeZone.getTimeZone(JVM_ZONE));
        List<String> names = new ArrayList<>();
        String url = null;
        for (String a : args) {
            if (a.equals("--list")) {
                CHECKS.keySet().forEach(System.out::println);
                return;
            } else if (a.contains("://")) {
                url = a;
            } else {
                names.add(a);
            }
        }
        if (url == null) url = System.getenv("PGURL");
        if (url == null || url.isEmpty()) {
            System.err.println("clienttest: no URL (argument or PGURL)");
            System.exit(2);
        }
        parseUrl(url);
        if (names.isEmpty()) names.addAll(CHECKS.keySet());
        for (String n : names) {
            if (!CHECKS.containsKey(n)) {
                System.err.println("clienttest: unknown check " + n);
                System.exit(2);
            }
        }
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r);
            t.setDaemon(true);
            return t;
        });
        int failed = 0;
        for (String n : names) {
            Check check = CHECKS.get(n);
            Future<?> f = pool.submit(() -> {
                check.run();
                return null;
            });
            try {
                f.get(CHECK_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                System.out.println("ok " + n);
            } catch (TimeoutException e) {
                f.cancel(true);
                failed++;
                System.out.println("FAIL " + n + ": timed out after " + CHECK_TIMEOUT_SECONDS + " s");
            } catch (Exception e) {
                failed++;
                System.out.println("FAIL " + n + ": " + describe(e));
                // the stack trace goes to stderr (shown by the pytest harness on failure)
                System.err.println("--- " + n + ":");
                (e.getCause() != null ? e.getCause() : e).printStackTrace();
            }
            System.out.flush();
        }
        System.exit(failed > 0 ? 1 : 0);
    }
}
