#!/usr/bin/env bash
# threadgres benchmark suite: threadgres against PostgreSQL 15 on this machine.
#
#   bench/run.sh [--quick|--full] [--smoke] [--only NAME,...] [--servers threadgres,postgresql]
#                [--reps N] [--no-build] [--latest|--no-latest]
#
#   --quick      (default) one repetition, short points; a few minutes
#   --full       three repetitions (median and best), the full point lists of benchmarks.md;
#                about 70 minutes (50 before the tables group)
#   --smoke      seconds-long points and reduced point lists, to prove the suite works (CI)
#   --only       benchmarks by name or number: 1 pgbench, 2 pingpong, 3 multicast,
#                4 wide-notify, 5 latency, 6 writers, 7 idle, 8 (or 9) tables
#                10 tpcc, 12 trigger-notify, 13 sysbench (11 is a placeholder)
#   --servers    which servers to run (default both)
#   --reps N     repetitions per point (overrides the mode)
#   --tables-scales LIST   scales of the tables group's pgbench -i points (e.g. 10,100)
#   --tables-load-only     the tables group measures only its pgbench -i points
#   --no-build   use the existing target/release/threadgres and bench/client build
#   --latest     also copy the results to bench/results/latest/ (default for a run of every
#                benchmark on both servers; not for --smoke, --only or one server)
#
# Results: bench/results/<timestamp>/{report.md,raw.csv,raw.jsonl,*.png,*.log}
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$BENCH_DIR")"
PG_BIN=/usr/lib/postgresql/15/bin
PG_USER=tgbench

MODE=quick
SMOKE=0
ONLY=""
SERVERS="threadgres,postgresql"
REPS=""
BUILD=1
LATEST=""
TABLES_SCALES=""
TABLES_LOAD_ONLY=0
ORIG_ARGS="$*"

usage() { sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --quick) MODE=quick ;;
        --full) MODE=full ;;
        --smoke) SMOKE=1 ;;
        --only) ONLY="${2:?--only needs a value}"; shift ;;
        --only=*) ONLY="${1#--only=}" ;;
        --servers) SERVERS="${2:?--servers needs a value}"; shift ;;
        --servers=*) SERVERS="${1#--servers=}" ;;
        --reps) REPS="${2:?--reps needs a value}"; shift ;;
        --reps=*) REPS="${1#--reps=}" ;;
        --tables-scales) TABLES_SCALES="${2:?--tables-scales needs a value}"; shift ;;
        --tables-scales=*) TABLES_SCALES="${1#--tables-scales=}" ;;
        --tables-load-only) TABLES_LOAD_ONLY=1 ;;
        --no-build) BUILD=0 ;;
        --latest) LATEST=1 ;;
        --no-latest) LATEST=0 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "run.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
if [ -z "$LATEST" ]; then
    # latest/ holds one complete side-by-side run (the README's tables come from it): a smoke
    # run, or one limited to some benchmarks or to one server, leaves it alone unless asked.
    # Both servers named, in either order.
    BOTH=0
    case ",$SERVERS," in *,threadgres,*) case ",$SERVERS," in *,postgresql,*) BOTH=1 ;; esac ;; esac
    if [ "$SMOKE" = 1 ] || [ -n "$ONLY" ] || [ "$BOTH" = 0 ] || [ -n "$TABLES_SCALES" ] \
            || [ "$TABLES_LOAD_ONLY" = 1 ]; then
        LATEST=0
    else
        LATEST=1
    fi
fi

say() { printf '== %s\n' "$*"; }
warn() { printf '!! %s\n' "$*" >&2; }

# ---- limits: thousands of connections need file descriptors on both sides -------------------
ulimit -Hn 1048576 2>/dev/null || true
ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true
say "open-file limit: $(ulimit -Sn) (hard $(ulimit -Hn))"

# ---- PostgreSQL 15 and pgbench from Debian ---------------------------------------------------
if [ ! -x "$PG_BIN/postgres" ] || [ ! -x "$PG_BIN/pgbench" ] || [ ! -x "$PG_BIN/psql" ]; then
    if [ "$(id -u)" = 0 ]; then
        say "installing postgresql-15 and postgresql-client-15"
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql-15 postgresql-client-15
    else
        warn "PostgreSQL 15 is missing in $PG_BIN and this is not root; install postgresql-15"
        exit 1
    fi
fi

# PostgreSQL refuses to run as root: it runs as an unprivileged user of its own.
if [ "$(id -u)" = 0 ] && ! id "$PG_USER" >/dev/null 2>&1; then
    say "creating user $PG_USER"
    useradd --system --no-create-home --shell /usr/sbin/nologin "$PG_USER"
fi

# ---- Python and matplotlib (plots) -----------------------------------------------------------
PY=python3
if ! command -v "$PY" >/dev/null; then
    warn "python3 is required"; exit 1
fi
if ! "$PY" -c 'import matplotlib' >/dev/null 2>&1; then
    say "installing matplotlib with pip"
    "$PY" -m pip install --quiet matplotlib >/dev/null 2>&1 \
        || "$PY" -m pip install --quiet --user matplotlib >/dev/null 2>&1 \
        || "$PY" -m pip install --quiet --break-system-packages matplotlib >/dev/null 2>&1 \
        || warn "could not install matplotlib; the report will have no plots"
fi

# ---- builds ----------------------------------------------------------------------------------
STAMP="$(date +%Y%m%d-%H%M%S)"
RUN_DIR="$BENCH_DIR/results/$STAMP"
mkdir -p "$RUN_DIR"

TG_BIN="$REPO/target/release/threadgres"
TG_BUILD_ERROR=""
if [ "$BUILD" = 1 ]; then
    say "building the load generator (bench/client)"
    if ! cargo build --release --quiet --manifest-path "$BENCH_DIR/client/Cargo.toml" \
            >"$RUN_DIR/build-client.log" 2>&1; then
        tail -n 30 "$RUN_DIR/build-client.log" >&2
        warn "bench/client does not build"; exit 1
    fi
    case ",$SERVERS," in
        *,threadgres,*)
            if [ -f "$REPO/Cargo.toml" ]; then
                say "building threadgres: cargo build --release (log: $RUN_DIR/build-threadgres.log)"
                if ! (cd "$REPO" && cargo build --release) >"$RUN_DIR/build-threadgres.log" 2>&1; then
                    tail -n 15 "$RUN_DIR/build-threadgres.log" >&2
                    TG_BUILD_ERROR="cargo build --release failed (see build-threadgres.log)"
                    warn "threadgres does not build; its points will be marked skipped"
                fi
            else
                TG_BUILD_ERROR="no Cargo.toml at $REPO"
            fi
            ;;
    esac
fi
if [ ! -x "$BENCH_DIR/client/target/release/tgbench" ]; then
    warn "bench/client/target/release/tgbench is missing (run without --no-build)"; exit 1
fi
if [ -n "$TG_BUILD_ERROR" ] && [ -x "$TG_BIN" ]; then
    # An older binary would be measured as if it were the current code: do not use it.
    TG_BIN="$TG_BIN.missing-because-the-build-failed"
fi

# ---- clean-up of servers, also on Ctrl-C -----------------------------------------------------
PY_PID=""
cleanup() {
    local pidfile="$RUN_DIR/servers.pid"
    [ -f "$pidfile" ] || return 0
    while read -r kind what; do
        case "$kind" in
            threadgres)
                kill -TERM "$what" 2>/dev/null || true
                ;;
            postgresql)
                if [ -d "$what" ]; then
                    if [ "$(id -u)" = 0 ]; then
                        runuser -u "$PG_USER" -- "$PG_BIN/pg_ctl" -D "$what" -m immediate -w stop \
                            >/dev/null 2>&1 || true
                    else
                        "$PG_BIN/pg_ctl" -D "$what" -m immediate -w stop >/dev/null 2>&1 || true
                    fi
                    rm -rf "$(dirname "$what")"
                fi
                ;;
        esac
    done <"$pidfile"
    rm -f "$pidfile"
}
forward() {
    # The harness stops the servers and writes the partial report itself.
    [ -n "$PY_PID" ] && kill "-$1" "$PY_PID" 2>/dev/null || true
}
trap cleanup EXIT
trap 'forward INT' INT
trap 'forward TERM' TERM HUP

# ---- run -------------------------------------------------------------------------------------
MODE_ARGS=(--mode "$MODE")
[ "$SMOKE" = 1 ] && MODE_ARGS+=(--smoke)
[ -n "$REPS" ] && MODE_ARGS+=(--reps "$REPS")
[ -n "$TABLES_SCALES" ] && MODE_ARGS+=(--tables-scales "$TABLES_SCALES")
[ "$TABLES_LOAD_ONLY" = 1 ] && MODE_ARGS+=(--tables-load-only)
set +e
"$PY" "$BENCH_DIR/harness.py" "${MODE_ARGS[@]}" --only "$ONLY" --servers "$SERVERS" \
    --run-dir "$RUN_DIR" --tg-bin "$TG_BIN" --tg-build-error "$TG_BUILD_ERROR" \
    --command-line "bench/run.sh $ORIG_ARGS" &
PY_PID=$!
RC=0
while :; do
    wait "$PY_PID"
    RC=$?
    kill -0 "$PY_PID" 2>/dev/null || break
done
set -e

if [ "$RC" = 0 ] && [ -f "$RUN_DIR/report.md" ] && [ "$LATEST" = 1 ]; then
    LATEST_DIR="$BENCH_DIR/results/latest"
    rm -rf "$LATEST_DIR"
    mkdir -p "$LATEST_DIR"
    cp "$RUN_DIR"/report.md "$RUN_DIR"/raw.csv "$RUN_DIR"/raw.jsonl "$LATEST_DIR"/
    cp "$RUN_DIR"/*.png "$LATEST_DIR"/ 2>/dev/null || true
    echo "$STAMP" >"$LATEST_DIR/RUN_ID"
    say "copied to $LATEST_DIR"
fi
say "results: $RUN_DIR (report.md, raw.csv, raw.jsonl, plots, server logs)"
exit "$RC"
