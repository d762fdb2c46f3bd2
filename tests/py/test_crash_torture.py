"""Crash torture (issue 29): writers commit multi-statement transactions over several tables and
record what the server acknowledged; the server is killed with SIGKILL at a random moment and
restarted on the same data directory, again and again. After each restart every acknowledged
transaction is there whole, and no other transaction is there in part.

CI runs a few cycles; `scripts/crash_torture.sh` runs 100 (TORTURE_CYCLES).
threadgres-only: PostgreSQL gives the same guarantee, which is the reference.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time

import pytest

import pgwire

TG = pytest.mark.parametrize("server", ["threadgres"], indirect=True)

ACCOUNTS = 20
WRITERS = 4


def writer(info, w: int, start: int, stop: threading.Event, acked: list, tried: list) -> None:
    """Transfers between accounts, each with a ledger row; a savepoint's row is always rolled
    back. `acked` gets each sequence number whose COMMIT returned; `tried` the last begun."""
    rnd = random.Random(w * 7919 + start)
    try:
        c = info.connect_raw()
    except Exception:  # noqa: BLE001 - the server is already gone
        return
    seq = start
    try:
        while not stop.is_set():
            seq += 1
            a, b = rnd.randrange(ACCOUNTS), rnd.randrange(ACCOUNTS)
            d = rnd.randrange(1, 100)
            tried.append(seq)
            c.simple("BEGIN")
            c.simple(f"UPDATE accounts SET balance = balance - {d} WHERE id = {a}")
            c.simple(f"UPDATE accounts SET balance = balance + {d} WHERE id = {b}")
            c.simple(f"INSERT INTO ledger (writer, seq, src, dst, amount) VALUES ({w}, {seq}, {a}, {b}, {d})")
            c.simple("SAVEPOINT s")
            c.simple(f"INSERT INTO ledger (writer, seq, src, dst, amount) VALUES ({w}, {-seq}, 0, 0, 0)")
            c.simple("ROLLBACK TO SAVEPOINT s")
            if seq % 5 == 0:
                c.simple(f"INSERT INTO notes VALUES ({w}, {seq}, repeat('n', {rnd.randrange(1, 500)}))")
            if seq % 7 == 0:
                c.simple(f"DELETE FROM notes WHERE w = {w} AND seq < {seq - 20}")
            c.simple("COMMIT")
            acked.append(seq)
    except Exception:  # noqa: BLE001 - the kill ends every connection
        pass


def other_work(info, stop: threading.Event) -> None:
    """Schema changes and checkpoints while the writers run (replay must cross them)."""
    try:
        c = info.connect_raw()
        n = 0
        while not stop.is_set():
            n += 1
            c.simple(f"CREATE TABLE IF NOT EXISTS side_{n % 3} (k int PRIMARY KEY, v text)")
            c.simple(f"INSERT INTO side_{n % 3} VALUES ({n}, 'v') ON CONFLICT (k) DO NOTHING")
            if n % 4 == 0:
                c.simple(f"DROP TABLE side_{(n + 1) % 3}")
            if n % 6 == 0:
                c.simple("CHECKPOINT")
            time.sleep(0.02)
    except Exception:  # noqa: BLE001
        pass


def check(info, acked: dict, maybe: dict) -> None:
    c = info.connect_raw()
    try:
        total = c.simple("SELECT sum(balance), count(*) FROM accounts")
        assert total == [("0", str(ACCOUNTS))], total
        # Every account's balance is what its ledger rows say: no transfer applied in part.
        bad = c.simple(
            "SELECT a.id, a.balance, coalesce(i.s, 0) - coalesce(o.s, 0) FROM accounts a "
            "LEFT JOIN (SELECT dst, sum(amount) s FROM ledger GROUP BY dst) i ON i.dst = a.id "
            "LEFT JOIN (SELECT src, sum(amount) s FROM ledger GROUP BY src) o ON o.src = a.id "
            "WHERE a.balance <> coalesce(i.s, 0) - coalesce(o.s, 0)")
        assert bad == [], bad
        assert c.simple("SELECT count(*) FROM ledger WHERE seq < 0") == [("0",)]
        rows = c.simple("SELECT writer, seq FROM ledger")
        have: dict = {}
        for w, s in rows:
            have.setdefault(int(w), set()).add(int(s))
        for w in range(WRITERS):
            got = have.get(w, set())
            missing = set(acked[w]) - got
            assert not missing, f"writer {w}: acknowledged commits lost: {sorted(missing)[:10]}"
            # Beyond the acknowledged ones, only those in flight at a kill may be there.
            extra = got - set(acked[w])
            assert extra <= maybe[w], (w, sorted(extra)[:10])
        dup = c.simple("SELECT writer, seq FROM ledger GROUP BY 1, 2 HAVING count(*) > 1")
        assert dup == [], dup
        # Indexes agree with the heap after replay.
        assert c.simple("SET enable_seqscan = off") == []
        n = c.simple("SELECT count(*) FROM accounts WHERE id >= 0")
        assert n == [(str(ACCOUNTS),)], n
    finally:
        c.close()


@TG
def test_kill9_loses_no_acknowledged_commit(server, tg_dedicated):
    cycles = int(os.environ.get("TORTURE_CYCLES", "5"))
    p = tg_dedicated()
    c = p.info.connect_raw()
    c.simple("CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL)")
    c.simple(f"INSERT INTO accounts SELECT g, 0 FROM generate_series(0, {ACCOUNTS - 1}) g")
    c.simple("CREATE TABLE ledger (id bigserial PRIMARY KEY, writer int, seq int, src int, dst int, amount int)")
    c.simple("CREATE INDEX ledger_ws ON ledger (writer, seq)")
    c.simple("CREATE TABLE notes (w int, seq int, t text)")
    c.close()
    acked = {w: [] for w in range(WRITERS)}
    tried = {w: [] for w in range(WRITERS)}
    maybe = {w: set() for w in range(WRITERS)}
    rnd = random.Random(int(os.environ.get("TORTURE_SEED", "29")))
    for cycle in range(cycles):
        stop = threading.Event()
        threads = [threading.Thread(target=writer, args=(p.info, w, cycle * 1_000_000, stop,
                                                         acked[w], tried[w]))
                   for w in range(WRITERS)]
        threads.append(threading.Thread(target=other_work, args=(p.info, stop)))
        for t in threads:
            t.start()
        time.sleep(rnd.uniform(0.3, 1.5))
        # Every fourth stop is a clean one (a shutdown image), so that crashes also follow
        # clean restarts.
        p.proc.send_signal(signal.SIGTERM if cycle % 4 == 3 else signal.SIGKILL)
        p.proc.wait(30)
        stop.set()
        for t in threads:
            t.join(10)
        for w in range(WRITERS):
            maybe[w].update(tried[w][-1:])
        p.start()
        check(p.info, acked, maybe)
    n = sum(len(a) for a in acked.values())
    assert n > 0, "no transaction was acknowledged"
    print(f"crash torture: {cycles} kills, {n} acknowledged transactions, all there after replay")
