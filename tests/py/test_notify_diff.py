"""LISTEN/NOTIFY conformance scenarios (shared/spec/notify.md), differential.

Each scenario drives several sessions; each session's exact message sequence
(NotificationResponse with the sender pid mapped to the sender's session label,
notices, errors, ReadyForQuery) must be the same on PostgreSQL 15 and on the
server under test. Single-session cases live in diff/notify.sql.

How the scenarios stay deterministic without timing assumptions:
- a notification to an *idle* session is awaited with `wait_notify(n)` (bounded);
- "nothing was delivered" is shown with a barrier query on the listener: a
  session inside a transaction block, or one that must not get anything, answers
  `SELECT ...` and anything wrongly delivered shows up in its transcript;
- "delivered after the command" uses sessions that are provably busy or inside a
  transaction when the notifier commits;
- errors used to abort transactions are run-time errors (1/x over generate_series)
  so that the scenarios do not depend on constant folding (covered by diff/errors.sql).
"""

from __future__ import annotations

import time

import pytest

import difftest
import pgwire

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def barrier(s, tag="barrier"):
    s.q(f"SELECT '{tag}' AS barrier")


@scenario
def trigger_notifications_are_delivered_at_commit(sc):
    """NOTIFY from a trigger (issue 32) behaves as from a statement: delivered at commit,
    de-duplicated within the transaction, dropped by ROLLBACK."""
    s1, s2 = sc.session("s1"), sc.session("s2")
    s2.q("DROP TABLE IF EXISTS ntr_t CASCADE")
    s2.q("CREATE OR REPLACE FUNCTION ntr_notify() RETURNS trigger LANGUAGE plpgsql AS "
         "$$ BEGIN PERFORM pg_notify('ntr', TG_OP || ' ' || row_to_json(NEW)::text); "
         "RETURN NULL; END $$")
    s2.q("CREATE TABLE ntr_t (id int, v text)")
    s2.q("CREATE TRIGGER ntr AFTER INSERT OR UPDATE ON ntr_t FOR EACH ROW "
         "EXECUTE FUNCTION ntr_notify()")
    s1.q("LISTEN ntr")
    s2.q("INSERT INTO ntr_t VALUES (1, 'a')")
    s1.wait_notify(1)
    s2.q("BEGIN")
    s2.q("INSERT INTO ntr_t VALUES (2, 'b'), (2, 'b')")
    s2.q("UPDATE ntr_t SET v = 'c' WHERE id = 1")
    barrier(s1)
    s2.q("COMMIT")
    s1.wait_notify(2)
    s2.q("BEGIN")
    s2.q("INSERT INTO ntr_t VALUES (3, 'x')")
    s2.q("ROLLBACK")
    barrier(s1, "after rollback")
    s2.q("DROP TABLE ntr_t")
    s2.q("DROP FUNCTION ntr_notify()")


@scenario
def rule_notifications_are_delivered_at_commit(sc):
    """NOTIFY as a rule's action (issue 32) behaves as a statement's NOTIFY: once per
    statement, delivered at commit, de-duplicated with the transaction's own NOTIFYs, dropped
    by ROLLBACK; a DO INSTEAD NOTIFY rule replaces the statement."""
    s1, s2 = sc.session("s1"), sc.session("s2")
    s2.q("DROP TABLE IF EXISTS nru_t CASCADE")
    s2.q("CREATE TABLE nru_t (id int, v text)")
    s2.q("CREATE RULE nru_upd AS ON UPDATE TO nru_t DO ALSO NOTIFY nru_changed")
    s2.q("CREATE RULE nru_del AS ON DELETE TO nru_t DO INSTEAD NOTIFY nru_changed, 'deleted'")
    s2.q("INSERT INTO nru_t VALUES (1, 'a'), (2, 'b')")
    s1.q("LISTEN nru_changed")
    s2.q("UPDATE nru_t SET v = 'c'")
    s1.wait_notify(1)
    s2.q("BEGIN")
    s2.q("UPDATE nru_t SET v = 'd' WHERE id = 1")
    s2.q("NOTIFY nru_changed")
    s2.q("UPDATE nru_t SET v = 'e' WHERE id = 99")
    s2.q("DELETE FROM nru_t")
    barrier(s1, "nothing before commit")
    s2.q("COMMIT")
    s1.wait_notify(2)
    s2.q("BEGIN")
    s2.q("UPDATE nru_t SET v = 'f'")
    s2.q("ROLLBACK")
    barrier(s1, "nothing from rollback")
    s2.q("SELECT count(*) FROM nru_t")
    s2.q("DROP TABLE nru_t")
    barrier(s1)


@scenario
def idle_listener_gets_notification(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN ch")
    s2.q("NOTIFY ch")
    s1.wait_notify(1)
    s2.q("NOTIFY ch, 'with payload'")
    s1.wait_notify(1)
    s2.q("SELECT pg_notify('ch', 'via function')")
    s1.wait_notify(1)
    s2.q("SELECT pg_notify('ch', NULL)")
    s1.wait_notify(1)
    s2.q("NOTIFY ch, 'héllo ✓ \"quoted\" ''single'''")
    s1.wait_notify(1)
    barrier(s1)


@scenario
def unlistened_channels_not_delivered(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN a")
    s2.q("NOTIFY b, 'other channel'")
    s2.q("NOTIFY A, 'folded to a'")
    s1.wait_notify(1)
    s2.q('NOTIFY "A", \'case sensitive\'')
    s2.q("NOTIFY a, 'last'")
    s1.wait_notify(1)
    barrier(s1)


@scenario
def notify_only_on_commit(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN ch")
    s2.q("BEGIN")
    s2.q("NOTIFY ch, 'pending'")
    barrier(s1, "nothing yet")
    s2.q("COMMIT")
    s1.wait_notify(1)
    s2.q("BEGIN")
    s2.q("NOTIFY ch, 'rolled back'")
    s2.q("ROLLBACK")
    barrier(s1, "nothing from rollback")
    s2.q("NOTIFY ch, 'after'")
    s1.wait_notify(1)
    barrier(s1)


@scenario
def aborted_transaction_sends_nothing(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN ch")
    s2.q("BEGIN")
    s2.q("NOTIFY ch, 'lost'")
    s2.q("SELECT 1/x FROM generate_series(0, 0) x")
    s2.q("NOTIFY ch, 'ignored'")
    s2.q("COMMIT")
    barrier(s1, "nothing from aborted")
    s2.q("NOTIFY ch, 'next'")
    s1.wait_notify(1)


@scenario
def savepoints_across_sessions(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN ch")
    s2.q("BEGIN")
    s2.q("NOTIFY ch, 'kept-1'")
    s2.q("SAVEPOINT sp")
    s2.q("NOTIFY ch, 'discarded'")
    s2.q("ROLLBACK TO sp")
    s2.q("SAVEPOINT sp2")
    s2.q("NOTIFY ch, 'kept-1'")
    s2.q("NOTIFY ch, 'kept-2'")
    s2.q("RELEASE sp2")
    s2.q("COMMIT")
    s1.wait_notify(2)
    barrier(s1)


@scenario
def multi_statement_query_one_transaction(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN ch")
    s2.q("NOTIFY ch, '1'; NOTIFY ch, '2'; NOTIFY ch, '1'; SELECT pg_notify('ch', '3')")
    s1.wait_notify(3)
    s2.q("NOTIFY ch, 'doomed'; SELECT 1/x FROM generate_series(0, 0) x")
    barrier(s1, "nothing from failed multi-statement")


@scenario
def no_folding_across_transactions(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN ch")
    s2.q("NOTIFY ch, 'same'")
    s1.wait_notify(1)
    s2.q("NOTIFY ch, 'same'")
    s1.wait_notify(1)
    s2.q("BEGIN")
    s2.q("NOTIFY ch, 'same'")
    s2.q("NOTIFY ch, 'same'")
    s2.q("NOTIFY ch, 'SAME'")
    s2.q("COMMIT")
    s1.wait_notify(2)
    barrier(s1)


@scenario
def commit_order_across_sessions(sc):
    s1, s2, s3 = sc.session("s1"), sc.session("s2"), sc.session("s3")
    s1.q("LISTEN ch")
    s2.q("BEGIN")
    s2.q("NOTIFY ch, 's2 first issued'")
    s3.q("BEGIN")
    s3.q("NOTIFY ch, 's3 second issued'")
    s3.q("COMMIT")
    s2.q("COMMIT")
    s1.wait_notify(2)
    s2.q("NOTIFY ch, 's2 again'")
    s1.wait_notify(1)
    s3.q("NOTIFY ch, 's3 again'")
    s1.wait_notify(1)
    barrier(s1)


@scenario
def order_within_transaction_many_channels(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN c1")
    s1.q("LISTEN c2")
    s2.q("BEGIN")
    for chan, payload in [("c2", "a"), ("c1", "b"), ("c3", "unlistened"), ("c1", "c"), ("c2", "a"), ("c2", "d")]:
        s2.q(f"NOTIFY {chan}, '{payload}'")
    s2.q("COMMIT")
    s1.wait_notify(4)
    s2.q("SELECT pg_notify('c' || (x % 3), x::text) FROM generate_series(1, 9) x")
    s1.wait_notify(6)
    barrier(s1)


@scenario
def listener_in_transaction_gets_after_commit(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN ch")
    s1.q("BEGIN")
    s1.q("SELECT 'in transaction'")
    s2.q("NOTIFY ch, 'while listener in tx'")
    s2.q("NOTIFY ch, 'second'")
    barrier(s1, "still in transaction")
    s1.q("COMMIT")
    s1.q("BEGIN")
    s2.q("NOTIFY ch, 'third'")
    s1.q("SELECT 1/x FROM generate_series(0, 0) x")
    s1.q("SELECT 'in failed block'")
    s1.q("ROLLBACK")
    barrier(s1)


@scenario
def listener_in_extended_batch_gets_at_sync(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN ch")
    s1.parse("", "SELECT 'in implicit transaction'").bind().execute()
    s1.flush(expect=4)
    s2.q("NOTIFY ch, 'during batch'")
    s1.parse("", "SELECT 'still before Sync'").bind().execute()
    s1.flush(expect=4)
    s1.sync()
    s1.x("NOTIFY ch, 'self via extended'")
    barrier(s1)


@scenario
def busy_listener_gets_before_ready_for_query(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN ch")
    s1.send_query("SELECT pg_sleep(30)")
    _wait_active(sc.server, s1.conn.pid)
    s2.q("NOTIFY ch, 'while busy'")
    s1.note("CancelRequest")
    pgwire.cancel_request(sc.server.host, sc.server.port, s1.conn.pid, s1.conn.secret)
    s1.read_until("Z", timeout=20)
    barrier(s1)


@scenario
def self_and_other_listeners(sc):
    s1, s2, s3 = sc.session("s1"), sc.session("s2"), sc.session("s3")
    s1.q("LISTEN ch")
    s2.q("LISTEN ch")
    s1.q("NOTIFY ch, 'from s1'")
    s2.wait_notify(1)
    s3.q("NOTIFY ch, 'from s3'")
    s1.wait_notify(1)
    s2.wait_notify(1)
    s2.q("NOTIFY ch, 'from s2'")
    s1.wait_notify(1)
    barrier(s1)
    barrier(s3, "s3 never listened")


@scenario
def new_listener_sees_only_later_commits(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s2.q("NOTIFY ch, 'before listen'")
    s1.q("LISTEN ch")
    barrier(s1, "nothing old")
    s2.q("NOTIFY ch, 'after listen'")
    s1.wait_notify(1)


@scenario
def listen_takes_effect_at_commit(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("BEGIN")
    s1.q("LISTEN ch")
    s2.q("NOTIFY ch, 'before commit of LISTEN'")
    s1.q("COMMIT")
    barrier(s1, "not registered yet when it was sent")
    s2.q("NOTIFY ch, 'after commit of LISTEN'")
    s1.wait_notify(1)
    s1.q("BEGIN")
    s1.q("LISTEN other")
    s1.q("ROLLBACK")
    s2.q("NOTIFY other, 'listen was rolled back'")
    s2.q("NOTIFY ch, 'marker'")
    s1.wait_notify(1)
    s1.q("BEGIN")
    s1.q("UNLISTEN ch")
    s2.q("NOTIFY ch, 'unlisten not yet committed'")
    barrier(s1, "in transaction")
    s1.q("COMMIT")
    s2.q("NOTIFY ch, 'after unlisten committed'")
    barrier(s1, "unlistened")


@scenario
def unlisten_drops_unread(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN ch")
    s1.q("LISTEN keep")
    s1.q("BEGIN")
    s2.q("NOTIFY ch, 'unread when unlistened'")
    s2.q("NOTIFY keep, 'still listened'")
    s1.q("UNLISTEN ch")
    s1.q("COMMIT")
    barrier(s1)


@scenario
def unlisten_star_and_last_action_wins(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("BEGIN; LISTEN a; UNLISTEN *; LISTEN b; COMMIT")
    s2.q("NOTIFY a, 'a'; NOTIFY b, 'b'")
    s1.wait_notify(1)
    s1.q("BEGIN; LISTEN x; UNLISTEN x; COMMIT")
    s2.q("NOTIFY x, 'x'; NOTIFY b, 'b2'")
    s1.wait_notify(1)
    s1.q("UNLISTEN *")
    s2.q("NOTIFY b, 'b3'")
    barrier(s1)
    s1.q("SELECT count(*) FROM pg_listening_channels()")


@scenario
def notify_then_listen_same_transaction_other_listener(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s2.q("LISTEN ch")
    s1.q("BEGIN")
    s1.q("NOTIFY ch, 'issued before LISTEN'")
    s1.q("LISTEN ch")
    s1.q("COMMIT")
    s2.wait_notify(1)
    barrier(s2)


@scenario
def discard_all_unlistens(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN ch")
    s1.q("DISCARD ALL")
    s2.q("NOTIFY ch, 'after discard'")
    barrier(s1)
    s1.q("LISTEN ch")
    s2.q("NOTIFY ch, 'listening again'")
    s1.wait_notify(1)


@scenario
def closed_session_is_unlistened(sc):
    s1, s2, s3 = sc.session("s1"), sc.session("s2"), sc.session("s3")
    s1.q("LISTEN ch")
    s3.q("LISTEN ch")
    s1.terminate()
    s2.q("NOTIFY ch, 'to s3 only'")
    s3.wait_notify(1)
    barrier(s2)


@scenario
def many_listeners_one_notify(sc):
    listeners = [sc.session(f"l{i}") for i in range(5)]
    n = sc.session("n")
    for l in listeners:
        l.q("LISTEN fan")
    n.q("NOTIFY fan, 'to everyone'")
    for l in listeners:
        l.wait_notify(1)
    n.q("SELECT pg_notify('fan', 'again')")
    for l in listeners:
        l.wait_notify(1)


@scenario
def read_only_transaction_can_notify(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN ch")
    s2.q("BEGIN READ ONLY")
    s2.q("NOTIFY ch, 'from read-only'")
    s2.q("COMMIT")
    s1.wait_notify(1)
    s2.q("SET default_transaction_read_only = on")
    s2.q("SELECT pg_notify('ch', 'default read only')")
    s1.wait_notify(1)


@scenario
def listening_channels_view(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN b; LISTEN a; LISTEN \"Mixed\"")
    s1.q("SELECT * FROM pg_listening_channels() ORDER BY 1")
    s2.q("SELECT count(*) FROM pg_listening_channels()")
    s1.q("BEGIN; LISTEN c; UNLISTEN a")
    s1.q("SELECT * FROM pg_listening_channels() ORDER BY 1")
    s1.q("COMMIT")
    s1.q("SELECT * FROM pg_listening_channels() ORDER BY 1")


@scenario
def notifications_stay_in_their_database(sc):
    admin = sc.session("admin")
    admin.q("DROP DATABASE IF EXISTS tg_notify_other")
    admin.q("CREATE DATABASE tg_notify_other")
    s1 = sc.session("s1")
    o1 = sc.session("o1", database="tg_notify_other")
    o2 = sc.session("o2", database="tg_notify_other")
    s1.q("LISTEN ch")
    o1.q("LISTEN ch")
    admin.q("NOTIFY ch, 'postgres db'")
    s1.wait_notify(1)
    barrier(o1, "other db got nothing")
    o2.q("NOTIFY ch, 'other db'")
    o1.wait_notify(1)
    barrier(s1, "postgres db got nothing")
    o1.terminate()
    o2.terminate()
    difftest.wait_database_unused(sc.server, "tg_notify_other")
    admin.q("DROP DATABASE tg_notify_other")


@scenario
def payload_limits_across_sessions(sc):
    s1, s2 = sc.session("s1"), sc.session("s2")
    s1.q("LISTEN ch")
    s2.q("SELECT pg_notify('ch', repeat('p', 7999))")
    s1.wait_notify(1)
    s2.q("SELECT pg_notify('ch', repeat('p', 8000))")
    s2.q("SELECT pg_notify(repeat('c', 63), 'long channel')")
    s2.q("SELECT pg_notify('', 'x')")
    barrier(s1)


def _wait_active(server, pid, timeout=10.0):
    deadline = time.monotonic() + timeout
    with server.connect_raw() as mon:
        while time.monotonic() < deadline:
            try:
                r = mon.simple(f"SELECT state FROM pg_stat_activity WHERE pid = {pid}")
            except pgwire.ServerError:  # no usable pg_stat_activity: give the query a moment instead
                time.sleep(0.3)
                return
            if r and r[0][0] == "active":
                return
            time.sleep(0.02)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_notify(pg, server, name):
    difftest.run_differential(pg, server, SCENARIOS[name], key=f"notify:{name}")
