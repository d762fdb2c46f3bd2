#!/usr/bin/env bash
# Kill -9 torture of the write-ahead log (issue 29): TORTURE_CYCLES (default 100) cycles of
# writers committing, SIGKILL at a random moment, restart and check that every acknowledged
# commit is there whole and nothing else is there in part. CI runs 3 cycles of the same test.
# Usage: scripts/crash_torture.sh [cycles] [seed]
set -euo pipefail
cd "$(dirname "$0")/.."
export TORTURE_CYCLES="${1:-${TORTURE_CYCLES:-100}}"
export TORTURE_SEED="${2:-${TORTURE_SEED:-$RANDOM}}"
echo "crash torture: $TORTURE_CYCLES cycles, seed $TORTURE_SEED"
SKIP_CARGO="${SKIP_CARGO:-}" exec bash scripts/test.sh -q -s -k "test_kill9_loses_no_acknowledged_commit"
