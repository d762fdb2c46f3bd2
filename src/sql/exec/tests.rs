//! Laziness, yield and resume, and the memory bound, on plans of every node kind.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;
use crate::config::Config;
use crate::error::PgResult;
use crate::instance::Instance;
use crate::sql::context::SessionCtx;
use crate::sql::types::FormatCtx;
use crate::sql::{Mode, Statement};

pub(super) struct TestSession {
    instance: Arc<Instance>,
    fmt: FormatCtx,
    /// check_interrupts fails once it has been called this many times.
    cancel_after: usize,
    checks: std::cell::Cell<usize>,
}

impl TestSession {
    pub(super) fn new() -> Self {
        TestSession {
            instance: Instance::new(Config::default()),
            fmt: FormatCtx::default(),
            cancel_after: usize::MAX,
            checks: Default::default(),
        }
    }
}

impl SessionCtx for TestSession {
    fn pid(&self) -> i32 {
        1
    }
    fn user(&self) -> &str {
        "postgres"
    }
    fn database(&self) -> &str {
        "postgres"
    }
    fn fmt(&self) -> &FormatCtx {
        &self.fmt
    }
    fn instance(&self) -> &Instance {
        &self.instance
    }
    fn notify(&mut self, _: &str, _: &str) -> PgResult<()> {
        Ok(())
    }
    fn listening_channels(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
    fn get_setting(&self, _: &str, _: bool) -> PgResult<Option<String>> {
        Ok(Some("x".into()))
    }
    fn set_setting(&mut self, _: &str, v: &str, _: bool) -> PgResult<String> {
        Ok(v.into())
    }
    fn check_interrupts(&self) -> PgResult<()> {
        self.checks.set(self.checks.get() + 1);
        if self.checks.get() > self.cancel_after {
            return Err(PgError::new(
                "57014",
                "canceling statement due to user request",
            ));
        }
        Ok(())
    }
    fn sleep(&self, _: f64) -> PgResult<()> {
        Ok(())
    }
    fn transaction_timestamp(&self) -> i64 {
        0
    }
    fn statement_timestamp(&self) -> i64 {
        0
    }
    fn notice(&mut self, _: PgError) {}
    fn client_addr(&self) -> Option<std::net::SocketAddr> {
        None
    }
    fn server_addr(&self) -> Option<std::net::SocketAddr> {
        None
    }
    fn current_xid(&mut self, _: &str) -> PgResult<u64> {
        Ok(1)
    }
}

fn plan(sql: &str) -> Plan {
    let parsed = crate::sql::parser::parse_uncached(sql).expect("parses");
    let stmt = crate::sql::analyze(
        &parsed.stmts[0].node,
        &mut Vec::new(),
        &FormatCtx::default(),
        Mode::Simple,
    )
    .unwrap_or_else(|e| panic!("{sql}: {}", e.message))
    .stmt;
    match stmt {
        Statement::Query(p) => Arc::unwrap_or_clone(p),
        _ => panic!("{sql}: not a query"),
    }
}

/// What a run gave: its rows, its error, and how many times it yielded.
#[derive(Debug)]
struct Outcome {
    rows: Vec<Row>,
    error: Option<(String, String)>,
    yields: usize,
}

fn drive(sql: &str, session: &mut TestSession, budget: Budget) -> Outcome {
    let plan = plan(sql);
    let mut cx = EvalCx {
        params: &[],
        outer: Vec::new(),
        session,
    };
    let mut exec = Executor::with_budget(&plan, budget);
    let mut out = Outcome {
        rows: Vec::new(),
        error: None,
        yields: 0,
    };
    loop {
        match exec.next(&mut cx) {
            Ok(Step::Row(r)) => out.rows.push(r),
            Ok(Step::Yield) => out.yields += 1,
            Ok(Step::Done) => break,
            Ok(Step::Wait(_)) => panic!("{sql}: no other transaction to wait for"),
            Err(e) => {
                out.error = Some((e.code.to_string(), e.message.clone()));
                break;
            }
        }
        assert!(out.rows.len() < 10_000_000, "{sql}: runaway");
    }
    // A finished executor stays finished.
    assert!(matches!(exec.next(&mut cx), Ok(Step::Done)));
    out
}

fn run_with(sql: &str, budget: Budget) -> Outcome {
    drive(sql, &mut TestSession::new(), budget)
}

fn unlimited() -> Budget {
    Budget::new(u32::MAX, Duration::from_secs(3600), WORK_MEM)
}

fn tiny(rows: u32) -> Budget {
    Budget::new(rows, Duration::from_secs(3600), WORK_MEM)
}

fn texts(rows: &[Row]) -> Vec<String> {
    rows.iter().map(|r| format!("{r:?}")).collect()
}

#[test]
fn limit_stops_pulling_an_endless_input() {
    let queries = [
        ("SELECT * FROM generate_series(1, 1000000000) LIMIT 3", 3),
        ("SELECT generate_series(1, 1000000000) LIMIT 3", 3),
        ("SELECT x * 2 FROM generate_series(1, 1000000000) x WHERE x % 2 = 0 LIMIT 5 OFFSET 2", 5),
        ("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT * FROM t LIMIT 10", 10),
        ("WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT n + 1 FROM t) SELECT * FROM t LIMIT 10", 10),
        ("SELECT * FROM (SELECT * FROM generate_series(1, 1000000000) UNION ALL SELECT 0) s LIMIT 4", 4),
        ("SELECT * FROM generate_series(1, 1000000000) a, generate_series(1, 2) b LIMIT 4", 4),
        ("SELECT * FROM generate_series(1, 1000000000) a, LATERAL generate_series(1, a) b LIMIT 4", 4),
        ("WITH t AS (SELECT * FROM generate_series(1, 1000000000) x) SELECT * FROM t LIMIT 2", 2),
        ("WITH t AS (SELECT * FROM generate_series(1, 1000000000) x) SELECT * FROM t a, t b LIMIT 3", 3),
        ("SELECT EXISTS (SELECT FROM generate_series(1, 1000000000))", 1),
        ("SELECT 5 = ANY (SELECT generate_series(1, 1000000000))", 1),
    ];
    for (sql, n) in queries {
        let t = Instant::now();
        let out = run_with(sql, Budget::default());
        assert_eq!(out.error, None, "{sql}");
        assert_eq!(out.rows.len(), n, "{sql}");
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "{sql}: {:?}",
            t.elapsed()
        );
    }
    let out = run_with(
        "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT * FROM t LIMIT 10",
        Budget::default(),
    );
    assert_eq!(out.rows.last(), Some(&vec![Value::Int4(10)]));
}

/// Queries covering every node kind (and every set-returning function, join kind and set
/// operation), some ending in an error after some rows.
pub(super) const EVERY_NODE: &[&str] = &[
    "SELECT 1",
    "VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    "SELECT * FROM generate_series(1, 50) WITH ORDINALITY",
    "SELECT * FROM generate_series(1::int8, 20::int8, 3::int8)",
    "SELECT * FROM generate_series(10, 1, -2)",
    "SELECT * FROM generate_series(0.5, 12.0, 0.5)",
    "SELECT * FROM generate_series('2024-01-01'::timestamp, '2024-02-01', '1 day')",
    "SELECT * FROM unnest(ARRAY[1, 2, NULL, 4]) WITH ORDINALITY",
    "SELECT * FROM generate_subscripts(ARRAY[5, 6, 7], 1)",
    "SELECT * FROM pg_listening_channels()",
    "SELECT * FROM abs(-3)",
    "SELECT typname, typlen FROM pg_type",
    "SELECT nspname FROM pg_namespace ORDER BY oid",
    "SELECT x, generate_series(1, x) FROM generate_series(1, 12) x",
    "SELECT generate_series(1, 3), generate_series(1, 7), unnest(ARRAY['a', 'b'])",
    "WITH t AS (SELECT x FROM generate_series(1, 30) x) SELECT * FROM t a, t b WHERE a.x = b.x",
    "WITH t AS (SELECT x FROM generate_series(1, 30) x) SELECT sum(x) FROM t",
    "WITH t AS (SELECT x FROM generate_series(1, 9) x), u AS (SELECT x * 2 AS y FROM t) SELECT * FROM t, u, u v WHERE t.x = u.y AND u.y = v.y",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 40) SELECT * FROM r",
    "WITH RECURSIVE r(n) AS (VALUES (1), (2) UNION SELECT (n * 3) % 17 FROM r) SELECT * FROM r",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r a, r b",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5), s(m) AS (SELECT 10 UNION ALL SELECT m - 1 FROM s, r WHERE m > 8 AND n = 1) SELECT * FROM s",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT (n + 1) % 9 FROM t) SEARCH DEPTH FIRST BY n SET o CYCLE n SET c USING p SELECT * FROM t ORDER BY o",
    "SELECT x * 2 FROM generate_series(1, 100) x WHERE x % 3 = 0",
    "SELECT * FROM generate_series(1, 10) a JOIN generate_series(5, 15) b ON a = b",
    "SELECT * FROM generate_series(1, 10) a LEFT JOIN generate_series(5, 15) b ON a = b",
    "SELECT * FROM generate_series(1, 10) a RIGHT JOIN generate_series(5, 15) b ON a = b",
    "SELECT * FROM generate_series(1, 10) a FULL JOIN generate_series(5, 15) b ON a = b",
    "SELECT * FROM generate_series(1, 0) a FULL JOIN generate_series(5, 8) b ON a = b",
    "SELECT * FROM generate_series(1, 6) a, generate_series(1, 7) b",
    "SELECT * FROM generate_series(1, 6) a, LATERAL generate_series(1, a) b",
    "SELECT * FROM generate_series(1, 6) a LEFT JOIN LATERAL (SELECT a * 10 AS y WHERE a % 2 = 0) l ON true",
    "SELECT x % 5, count(*), sum(x), avg(x), min(x), max(x), array_agg(x ORDER BY x DESC), string_agg(x::text, ','), count(DISTINCT x % 3) FROM generate_series(1, 100) x GROUP BY 1",
    "SELECT count(*), sum(x) FROM generate_series(1, 0) x",
    "SELECT bool_and(x > 0), bool_or(x > 5) FROM generate_series(1, 9) x HAVING count(*) > 1",
    "SELECT x, row_number() OVER (ORDER BY x DESC), sum(x) OVER (PARTITION BY x % 3 ORDER BY x), lag(x) OVER (ORDER BY x) FROM generate_series(1, 40) x",
    "SELECT x, rank() OVER w, first_value(x) OVER w FROM generate_series(1, 30) x WINDOW w AS (PARTITION BY x % 4 ORDER BY x / 3)",
    "SELECT x FROM generate_series(1, 100) x ORDER BY x % 7, x DESC",
    "SELECT DISTINCT x % 7 FROM generate_series(1, 100) x",
    "SELECT DISTINCT ON (x % 5) x % 5 AS k, x FROM generate_series(1, 50) x ORDER BY k, x DESC",
    "SELECT x FROM generate_series(1, 100) x LIMIT 10 OFFSET 5",
    "SELECT x FROM generate_series(1, 100) x ORDER BY x DESC LIMIT 7",
    "SELECT * FROM generate_series(1, 20) UNION ALL SELECT * FROM generate_series(5, 30)",
    "SELECT * FROM generate_series(1, 20) UNION SELECT * FROM generate_series(5, 30)",
    "SELECT x % 6 FROM generate_series(1, 20) x INTERSECT SELECT * FROM generate_series(2, 4)",
    "SELECT x % 6 FROM generate_series(1, 20) x INTERSECT ALL SELECT x % 3 FROM generate_series(1, 9) x",
    "SELECT x % 6 FROM generate_series(1, 20) x EXCEPT SELECT * FROM generate_series(2, 4)",
    "SELECT x % 6 FROM generate_series(1, 20) x EXCEPT ALL SELECT x % 3 FROM generate_series(1, 9) x",
    "SELECT x, (SELECT count(*) FROM generate_series(1, x)) FROM generate_series(1, 20) x",
    "SELECT x FROM generate_series(1, 30) x WHERE x IN (SELECT y * 2 FROM generate_series(1, 10) y)",
    "SELECT x FROM generate_series(1, 30) x WHERE EXISTS (SELECT 1 WHERE x > 25)",
    "SELECT ARRAY(SELECT generate_series(1, x)) FROM generate_series(1, 5) x",
    // Errors after some rows: the same rows, then the same error.
    "SELECT 1 / (x - 30) FROM generate_series(1, 50) x",
    "VALUES (1), (2), (1 / (random() > 2)::int)",
    "SELECT * FROM generate_series(1, 40) a JOIN generate_series(1, 3) b ON 1 / (a - 20) > b",
    "SELECT * FROM generate_series(1, 40) a UNION ALL SELECT 1 / (x - 3) FROM generate_series(1, 5) x",
    "SELECT (SELECT x FROM generate_series(1, x)) FROM generate_series(1, 5) x",
    "SELECT x FROM generate_series(1, 50) x ORDER BY 1 / (x - 40)",
];

#[test]
fn yield_and_resume_give_the_same_rows_and_errors() {
    for sql in EVERY_NODE {
        let whole = run_with(sql, unlimited());
        assert_eq!(whole.yields, 0, "{sql}");
        for n in [1, 2, 3, 7] {
            let pieces = run_with(sql, tiny(n));
            assert_eq!(
                texts(&pieces.rows),
                texts(&whole.rows),
                "{sql} (budget {n})"
            );
            assert_eq!(pieces.error, whole.error, "{sql} (budget {n})");
            if n == 1 && whole.rows.len() > 1 {
                assert!(pieces.yields > 0, "{sql}: never yielded");
            }
        }
    }
}

#[test]
fn rows_before_an_error_come_first() {
    let out = run_with(
        "SELECT 1 / (x - 3) FROM generate_series(1, 5) x",
        Budget::default(),
    );
    assert_eq!(out.rows.len(), 2);
    assert_eq!(out.error.unwrap().1, "division by zero");
    let out = run_with(
        "SELECT 1 / (x - 3) FROM generate_series(1, 5) x LIMIT 2",
        Budget::default(),
    );
    assert_eq!((out.rows.len(), out.error), (2, None));
    let out = run_with("SELECT 1 LIMIT -1", Budget::default());
    assert_eq!(out.error.unwrap().1, "LIMIT must not be negative");
    let out = run_with("SELECT (SELECT generate_series(1, 2))", Budget::default());
    assert_eq!(out.error.unwrap().0, "21000");
}

#[test]
fn a_cte_read_twice_runs_once() {
    let out = run_with(
        "WITH t AS (SELECT random() AS r) SELECT a.r = b.r FROM t a, t b",
        Budget::default(),
    );
    assert_eq!(out.rows, vec![vec![Value::Bool(true)]]);
    // A CTE inside a lateral subquery runs again for each left row, which it may refer to.
    let out = run_with(
        "SELECT a, s FROM generate_series(1, 3) a, LATERAL (WITH c AS (SELECT a * 10 AS v) SELECT x.v + y.v AS s FROM c x, c y) l",
        Budget::default(),
    );
    assert_eq!(
        texts(&out.rows),
        texts(&[
            vec![Value::Int4(1), Value::Int4(20)],
            vec![Value::Int4(2), Value::Int4(40)],
            vec![Value::Int4(3), Value::Int4(60)],
        ])
    );
}

#[test]
fn executors_of_one_plan_do_not_share_work_tables() {
    let p = plan("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 50) SELECT * FROM r");
    let mut session = TestSession::new();
    let mut cx = EvalCx {
        params: &[],
        outer: Vec::new(),
        session: &mut session,
    };
    let mut a = Executor::with_budget(&p, tiny(1));
    let mut b = Executor::with_budget(&p, tiny(1));
    let (mut ra, mut rb) = (Vec::new(), Vec::new());
    loop {
        let sa = a.next(&mut cx).unwrap();
        let sb = b.next(&mut cx).unwrap();
        if let Step::Row(r) = sa {
            ra.push(r);
        }
        if let Step::Row(r) = sb {
            rb.push(r);
        }
        if ra.len() == 50 && rb.len() == 50 {
            break;
        }
    }
    let want: Vec<Row> = (1..=50).map(|n| vec![Value::Int4(n)]).collect();
    assert_eq!(ra, want);
    assert_eq!(rb, want);
}

#[test]
fn an_executor_can_be_kept_open() {
    fn send<T: Send + 'static>(_: &T) {}
    let p = Arc::new(plan("SELECT * FROM generate_series(1, 5)"));
    let mut exec = Executor::open(p);
    send(&exec);
    let mut session = TestSession::new();
    let mut cx = EvalCx {
        params: &[],
        outer: Vec::new(),
        session: &mut session,
    };
    assert_eq!(exec.next_row(&mut cx).unwrap(), Some(vec![Value::Int4(1)]));
    assert_eq!(exec.columns().len(), 1);
}

#[test]
fn interrupts_are_checked_when_the_budget_is_spent() {
    let mut session = TestSession::new();
    session.cancel_after = 2;
    let out = drive(
        "SELECT count(*) FROM generate_series(1, 1000000000)",
        &mut session,
        tiny(100),
    );
    assert_eq!(out.error.unwrap().0, "57014");
    assert_eq!(out.yields, 2);
}

#[test]
fn operators_holding_rows_are_bounded() {
    let queries = [
        ("SELECT x FROM generate_series(1, 100000) x ORDER BY x DESC", "Sort"),
        ("SELECT x, count(*) FROM generate_series(1, 100000) x GROUP BY x", "HashAggregate"),
        ("SELECT array_agg(x) FROM generate_series(1, 100000) x", "HashAggregate"),
        ("SELECT count(DISTINCT x) FROM generate_series(1, 100000) x", "HashAggregate"),
        ("SELECT DISTINCT x FROM generate_series(1, 100000) x", "Unique"),
        ("SELECT x, row_number() OVER () FROM generate_series(1, 100000) x", "WindowAgg"),
        ("SELECT * FROM generate_series(1, 100000) UNION SELECT 1", "HashSetOp"),
        ("SELECT * FROM generate_series(1, 100000) EXCEPT SELECT 1", "HashSetOp"),
        ("SELECT * FROM generate_series(1, 2) a, generate_series(1, 100000) b", "Nested Loop"),
        ("WITH t AS (SELECT * FROM generate_series(1, 100000) x) SELECT count(*) FROM t a, t b WHERE a.x = b.x AND a.x < 0", "CTE Scan"),
        ("WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r) SELECT count(*) FROM r", "Recursive Union"),
    ];
    for (sql, what) in queries {
        let out = run_with(sql, Budget::new(BUDGET_ROWS, BUDGET_TIME, 1 << 20));
        let (code, message) = out.error.unwrap_or_else(|| panic!("{sql}: no error"));
        assert_eq!(code, "54000", "{sql}");
        assert_eq!(
            message,
            format!("{what} exceeds the memory limit of 1 MB"),
            "{sql}"
        );
    }
    // What streams holds nothing, however long it runs.
    let out = run_with(
        "SELECT count(*) FROM generate_series(1, 200000) x WHERE x % 2 = 0",
        Budget::new(BUDGET_ROWS, BUDGET_TIME, 1 << 10),
    );
    assert_eq!(out.rows, vec![vec![Value::Int8(100000)]]);
    // A single-reference CTE runs in place, holding nothing either.
    let out = run_with(
        "WITH t AS (SELECT * FROM generate_series(1, 100000) x) SELECT count(*) FROM t",
        Budget::new(BUDGET_ROWS, BUDGET_TIME, 1 << 10),
    );
    assert_eq!(out.rows, vec![vec![Value::Int8(100000)]]);
}

#[test]
fn the_materialized_result_is_bounded() {
    let mut session = TestSession::new();
    let p = plan("SELECT 1");
    let mut cx = EvalCx {
        params: &[],
        outer: Vec::new(),
        session: &mut session,
    };
    let (rows, err) = run_plan_streaming(&p, &mut cx);
    assert_eq!((rows.len(), err.is_none()), (1, true));
    let mut held = Held::default();
    let e = held
        .add(MAX_RESULT_BYTES + 1, MAX_RESULT_BYTES, "query result")
        .unwrap_err();
    assert_eq!(
        e.message,
        "query result exceeds the memory limit of 1024 MB"
    );
}

#[test]
fn hash_joins_match_no_nulls_resume_and_are_bounded() {
    let sql = "SELECT a, b FROM (VALUES (1), (NULL), (2)) s(a) FULL JOIN (VALUES (NULL), (2), (3)) t(b) ON a = b ORDER BY 1, 2";
    assert!(
        format!("{:?}", plan(sql)).contains("HashJoin"),
        "an equi-join is hashed"
    );
    let expected = vec![
        vec![Value::Int4(1), Value::Null],
        vec![Value::Int4(2), Value::Int4(2)],
        vec![Value::Null, Value::Int4(3)],
        vec![Value::Null, Value::Null],
        vec![Value::Null, Value::Null],
    ];
    assert_eq!(texts(&run_with(sql, unlimited()).rows), texts(&expected));
    // Yielding after every row gives the same rows.
    let join =
        "SELECT a, b FROM generate_series(1, 50) a LEFT JOIN generate_series(1, 100, 3) b ON a = b";
    let once = run_with(join, unlimited());
    let slow = run_with(join, tiny(1));
    assert!(slow.yields > 10);
    assert_eq!(texts(&once.rows), texts(&slow.rows));
    assert_eq!(once.rows.len(), 50);
    let out = run_with(
        "SELECT count(*) FROM generate_series(1, 2) a JOIN generate_series(1, 100000) b ON a = b",
        Budget::new(BUDGET_ROWS, BUDGET_TIME, 1 << 20),
    );
    let (code, message) = out.error.expect("the hash table is bounded");
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("54000", "Hash exceeds the memory limit of 1 MB")
    );
}
