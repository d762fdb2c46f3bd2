#!/usr/bin/env bash
# Random queries against a fresh threadgres with SQLsmith (Debian's `sqlsmith`, unmodified), to
# prove that no statement takes the server down (issue 27).
#
#   bash scripts/sqlsmith.sh [--bin PATH] [--duration SECONDS] [--seed N] [--keep]
#
#   --bin PATH          the threadgres binary (default $THREADGRES_BIN, else target/release/threadgres)
#   --duration SECONDS  how long sqlsmith runs (default 60)
#   --seed N            sqlsmith's random seed (default 1), so that a run can be repeated
#   --keep              keep the temporary directory (server log, sqlsmith output)
#   --log-to CONNSTR    also pass sqlsmith --log-to (a PostgreSQL database that records each
#                       error with its SQLSTATE); optional, the report below needs no PostgreSQL
#
# It installs sqlsmith (and psql) with apt-get when missing, starts threadgres on a free port
# with a temporary data directory, creates a small schema (tables of varied types, indexes, a
# foreign key, a view, some rows), runs sqlsmith for the given time and reports: the queries
# sqlsmith ran, its errors grouped by message (sqlsmith itself only has the message; the server
# log's SQLSTATEs are counted too when the log has them), and whether the server stayed up: the
# process alive, `SELECT 1` answered, no "panicked" or "overflowed" in its log.
#
# The last line is machine-readable: `sqlsmith: queries=N errors=N server=up|down panics=N`.
# Exit status: 0 when the server survived, 1 when it went down or logged a panic, 2 on a
# setup failure.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/lib.sh"

BIN="${THREADGRES_BIN:-$ROOT/target/release/threadgres}"
DURATION=60
SEED=1
KEEP=0
LOG_TO=""
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) BIN="$2"; shift 2 ;;
        --duration) DURATION="$2"; shift 2 ;;
        --seed) SEED="$2"; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --log-to) LOG_TO="$2"; shift 2 ;;
        -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

log() { echo "[sqlsmith.sh] $*" >&2; }

[ -x "$BIN" ] || { log "no threadgres binary at $BIN"; exit 2; }

# sqlsmith and psql from Debian when missing (idempotent: nothing to do the second time).
need=()
command -v sqlsmith >/dev/null 2>&1 || need+=(sqlsmith)
command -v psql >/dev/null 2>&1 || need+=(postgresql-client)
if [ ${#need[@]} -gt 0 ]; then
    mapfile -t need < <(missing_packages "${need[@]}")
    if [ ${#need[@]} -gt 0 ]; then
        log "installing ${need[*]}"
        apt_install "${need[@]}" >&2 || { log "apt-get failed"; exit 2; }
    fi
fi

TMP="$(mktemp -d /tmp/tg-sqlsmith.XXXXXX)"
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$SERVER_PID" 2>/dev/null
    fi
    if [ "$KEEP" -eq 1 ]; then log "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
log "starting $BIN on 127.0.0.1:$PORT (data $TMP/data)"
"$BIN" --port "$PORT" --data-dir "$TMP/data" --ssl off >"$TMP/server.log" 2>&1 &
SERVER_PID=$!

PSQL=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres -d postgres)
alive() { kill -0 "$SERVER_PID" 2>/dev/null && [ "$("${PSQL[@]}" -Atc 'SELECT 1' 2>/dev/null)" = 1 ]; }
for _ in $(seq 100); do alive && break; sleep 0.1; done
alive || { log "the server did not start"; cat "$TMP/server.log" >&2; exit 2; }

"${PSQL[@]}" >/dev/null <<'SQL' || { log "creating the schema failed"; exit 2; }
CREATE TABLE customers (
    id int PRIMARY KEY,
    name text NOT NULL,
    email varchar(80) UNIQUE,
    active bool DEFAULT true,
    born date,
    balance numeric(12, 2),
    created timestamptz DEFAULT now()
);
CREATE TABLE orders (
    id bigint PRIMARY KEY,
    customer int REFERENCES customers (id),
    amount numeric,
    qty smallint,
    weight float8,
    note text,
    tags int[],
    attrs jsonb,
    placed timestamp
);
CREATE INDEX orders_customer ON orders (customer);
CREATE INDEX orders_placed ON orders (placed DESC);
CREATE TABLE events (
    ts timestamptz NOT NULL,
    kind char(4),
    payload json,
    ratio real,
    uid uuid,
    len interval,
    ip inet,
    raw bytea
);
CREATE INDEX events_kind_ts ON events (kind, ts);
CREATE TABLE counters (k text PRIMARY KEY, v bigint NOT NULL DEFAULT 0, t time);
INSERT INTO customers
    SELECT i, 'name ' || i, 'c' || i || '@example.com', i % 3 <> 0,
           date '1970-01-01' + i * 97, (i * 12.5)::numeric(12, 2), timestamptz '2024-01-01' + i * interval '1 hour'
    FROM generate_series(1, 50) i;
INSERT INTO orders
    SELECT i, 1 + i % 50, i * 1.25, (i % 7)::smallint, i / 3.0, CASE WHEN i % 5 = 0 THEN NULL ELSE 'note ' || i END,
           ARRAY[i, i + 1, i % 4], jsonb_build_object('n', i, 'even', i % 2 = 0),
           timestamp '2024-02-01' + i * interval '37 minutes'
    FROM generate_series(1, 200) i;
INSERT INTO events
    SELECT timestamptz '2024-03-01' + i * interval '1 minute', 'k' || (i % 5), json_build_object('i', i),
           i / 7.0, gen_random_uuid(), i * interval '1 second', ('10.0.0.' || i % 250)::inet, decode(md5(i::text), 'hex')
    FROM generate_series(1, 100) i;
INSERT INTO counters SELECT 'k' || i, i * 10, time '12:00' + i * interval '1 minute' FROM generate_series(1, 20) i;
CREATE VIEW big_orders AS
    SELECT o.id, c.name, o.amount FROM orders o JOIN customers c ON c.id = o.customer WHERE o.amount > 100;
SQL

log "running sqlsmith for ${DURATION}s (seed $SEED)"
SMITH=(sqlsmith "--target=host=127.0.0.1 port=$PORT user=postgres dbname=postgres" "--seed=$SEED" --verbose)
[ -n "$LOG_TO" ] && SMITH+=("--log-to=$LOG_TO")
# SIGINT makes sqlsmith print its report (queries, errors by message) and stop.
timeout --signal=INT --kill-after=30 "$DURATION" "${SMITH[@]}" >"$TMP/sqlsmith.out" 2>"$TMP/sqlsmith.err"
smith_rc=$?

# sqlsmith's report (printed every 800 queries and at the end, counts so far): `queries: N`,
# then `count<TAB>first line of the error message` lines up to `error rate:`; progress lines
# have one character per query: . ok, e error, t timeout, S syntax error, C connection lost.
read -r queries errors broken < <(python3 - "$TMP/sqlsmith.err" "$TMP/errors.txt" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read().splitlines()
last = max((i for i, l in enumerate(text) if l.startswith("queries: ")), default=None)
queries, errs = 0, []
if last is not None:
    queries = int(text[last].split()[1])
    for l in text[last + 1:]:
        if l.startswith("error rate"):
            break
        m = re.match(r"^(\d+)\t(.*)$", l)
        if m:
            errs.append((int(m.group(1)), m.group(2)))
broken = sum(l.count("C") for l in text if re.fullmatch(r"[.etSC]+", l))
with open(sys.argv[2], "w") as f:
    for n, msg in sorted(errs, key=lambda e: -e[0]):
        f.write(f"{n}\t{msg}\n")
print(queries, sum(n for n, _ in errs), broken)
PY
)
queries="${queries:-0}"; errors="${errors:-0}"; broken="${broken:-0}"

state=up
alive || state=down
panics="$(grep -cE 'panicked|overflowed' "$TMP/server.log" || true)"

echo "sqlsmith exit status: $smith_rc (124: stopped after ${DURATION}s)"
echo "queries run: $queries"
echo "errors: $errors"
echo "errors by message (top 25):"
head -25 "$TMP/errors.txt" | sed 's/^/    /'
if grep -qE '\b[0-9A-Z]{5}\b' "$TMP/server.log" && grep -q 'ERROR' "$TMP/server.log"; then
    echo "server log errors by SQLSTATE:"
    grep -oE 'ERROR:? +[0-9A-Z]{5}' "$TMP/server.log" | awk '{print $NF}' | sort | uniq -c | sort -nr | head -20 | sed 's/^/    /'
fi
echo "lost connections (sqlsmith 'C'): ${broken:-0}"
echo "server: $state; panics/overflows in its log: $panics"
if [ "$panics" -gt 0 ]; then
    grep -E -B2 -A8 'panicked|overflowed' "$TMP/server.log" | head -60
fi
if [ "$state" = down ] && [ "$KEEP" -eq 0 ]; then
    KEEP=1
fi
echo "sqlsmith: queries=$queries errors=$errors server=$state panics=$panics"
[ "$state" = up ] && [ "$panics" -eq 0 ] || exit 1
exit 0
