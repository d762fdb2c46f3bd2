#!/usr/bin/env bash
# SERIALIZABLE vs REPEATABLE READ throughput on threadgres and PostgreSQL 15: pgbench's
# tpcb-like at scale 8, C clients, T seconds per point, serialization failures retried
# (--max-tries) and counted. Usage: bench/ssi.sh [threadgres-binary] (default
# target/release/threadgres); C, T and SCALE from the environment.
set -euo pipefail
BIN=${1:-target/release/threadgres}
C=${C:-8}
T=${T:-15}
SCALE=${SCALE:-8}
PGBIN=$(ls -d /usr/lib/postgresql/15/bin 2>/dev/null || dirname "$(command -v postgres)")
TG_PORT=55433
PG_PORT=55432
WORK=$(mktemp -d)
# PostgreSQL refuses to run as root: then as PG_OS_USER (the test harness's user).
AS=()
if [ "$(id -u)" = 0 ]; then
    AS=(runuser -u "${PG_OS_USER:-tgtest}" --)
    chown "${PG_OS_USER:-tgtest}" "$WORK"
fi
cleanup() {
    [ -n "${TG_PID:-}" ] && kill "$TG_PID" 2>/dev/null || true
    "${AS[@]}" "$PGBIN/pg_ctl" -D "$WORK/pg" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

"${AS[@]}" "$PGBIN/initdb" -D "$WORK/pg" -U postgres -A trust >/dev/null
"${AS[@]}" "$PGBIN/pg_ctl" -D "$WORK/pg" -o "-p $PG_PORT -k $WORK -c max_connections=100" -l "$WORK/pg.log" -w start >/dev/null
"$BIN" --port "$TG_PORT" >"$WORK/tg.log" 2>&1 &
TG_PID=$!
for _ in $(seq 100); do
    pg_isready -h 127.0.0.1 -p "$TG_PORT" >/dev/null 2>&1 && break
    sleep 0.1
done

# pgbench's tpcb-like script, its BEGIN naming the isolation level.
script() {
    cat <<SQL
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN ISOLATION LEVEL $1;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
SQL
}
script "REPEATABLE READ" >"$WORK/rr.sql"
script "SERIALIZABLE" >"$WORK/ser.sql"

for side in "threadgres $TG_PORT 127.0.0.1" "postgresql $PG_PORT $WORK"; do
    set -- $side
    name=$1 port=$2 host=$3
    pgbench -h "$host" -p "$port" -U postgres -i -q -s "$SCALE" postgres >/dev/null 2>&1
    for iso in rr ser; do
        out=$(pgbench -h "$host" -p "$port" -U postgres -n -f "$WORK/$iso.sql" -c "$C" -j "$C" \
            -T "$T" --max-tries=100 --failures-detailed postgres 2>&1)
        tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
        fails=$(echo "$out" | sed -n 's/^number of failed transactions: \(.*\)/\1/p')
        retried=$(echo "$out" | sed -n 's/^number of transactions retried: \(.*\)/\1/p')
        detail=$(echo "$out" | grep -E "^ *number of (serialization|deadlock) failures" | tr -s " " | paste -sd";" -)
        echo "$name | $iso | tps $tps | failed $fails | retried $retried | $detail"
    done
done
