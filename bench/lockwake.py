"""Benchmark 14: a row lock's waiter runs again promptly (issue 30, fair shards), run by
bench/harness.py.

`tgbench lock-wake` (bench/client/src/lockwake.rs) hands a row lock from one session to another
`rounds` times: the holder updates row 1 in an open transaction, the waiter's UPDATE of the
same row waits, the holder commits, and the time until the waiter's UPDATE returns is measured
(from the holder's COMMIT reply: `wake_ms`; from sending COMMIT: `handover_ms`). Three points:
alone, beside 8 sessions running point SELECTs in a loop, and beside 2 sessions running a
long aggregate (a sum over generate_series) in a loop, so that the waiter's shard (threadgres)
or the machine's cores (PostgreSQL) have other work when the lock is released.
"""

# Metrics shown in the report: key -> (label, unit, higher_is_better)
METRICS = {
    "wake_ms_p50": ("waiter's reply after the COMMIT reply, p50", "ms", False),
    "wake_ms_p99": ("waiter's reply after the COMMIT reply, p99", "ms", False),
    "wake_ms_max": ("waiter's reply after the COMMIT reply, max", "ms", False),
    "handover_ms_p50": ("COMMIT sent to waiter's reply, p50", "ms", False),
    "handover_ms_p99": ("COMMIT sent to waiter's reply, p99", "ms", False),
    "commit_ms_p50": ("holder's COMMIT (durable), p50", "ms", False),
    "background_ops_per_s": ("background statements/s", "1/s", True),
}
TABLE_METRICS = list(METRICS)

# (label, busy sessions, long-statement sessions)
LOADS = [("alone", 0, 0), ("beside 8 point SELECT loops", 8, 0),
         ("beside 2 long aggregate loops", 0, 2)]

NOTES = ("`tgbench lock-wake --rounds R [--busy 8 | --long 2]`: session A runs `BEGIN; UPDATE "
         "lockwake SET v = v + 1 WHERE id = 1`, session B sends `BEGIN; UPDATE` of the same row "
         "(it waits for A's row lock), 5 ms later A sends COMMIT; measured: from A's COMMIT "
         "reply to B's UPDATE reply (`wake`, 0 when B's reply is read first) and from sending "
         "COMMIT to B's reply (`handover`, includes the durable commit); B commits afterwards, "
         "unmeasured. `--busy 8`: 8 more sessions run `SELECT v FROM lockwake WHERE id = $1` "
         "(prepared) in a loop; `--long 2`: 2 more sessions run `SELECT sum(g) FROM "
         "generate_series(1, 2000000) g` in a loop. Both servers commit durably.")


def points(cfg, point_cls, run_client):
    rounds = cfg["lw_rounds"]
    pts = []
    for x, (label, busy, long_) in enumerate(LOADS):
        def run(srv, busy=busy, long_=long_):
            return run_client(["lock-wake", "--rounds", str(rounds), "--busy", str(busy),
                               "--long", str(long_)], srv.port, timeout=300 + rounds * 0.2)
        pts.append(point_cls("lock-wake", label, dict(rounds=rounds, busy=busy, long=long_),
                             run, x=x, series="lock-wake", short=True))
    return pts
