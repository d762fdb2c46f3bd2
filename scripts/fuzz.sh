#!/usr/bin/env bash
# Runs the property tests over client input (src/sql/fuzz_tests.rs: the frontend protocol's
# decoder, the start-up packet, every type's text and binary input) for a given time, with a
# new random seed each round, and more cases per round than the suite runs.
#
#   bash scripts/fuzz.sh [SECONDS] [CASES_PER_ROUND]     # defaults: 600, 5000
#
# A failing input is shrunk by proptest and kept in src/sql/proptest-regressions/ (the
# corpus, replayed first by every later run and by the suite): commit it with its fix.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds="${1:-600}"
cases="${2:-5000}"
bin="$(cargo test --release --lib --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import sys, json
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["lib"]:
        print(m["executable"])' | tail -1)"
[ -x "$bin" ] || { echo "no test binary" >&2; exit 1; }
end=$(( $(date +%s) + seconds ))
round=0
while [ "$(date +%s)" -lt "$end" ]; do
    round=$((round + 1))
    echo "== round $round ($cases cases per property)"
    PROPTEST_CASES="$cases" "$bin" sql::fuzz_tests --test-threads 2 -q
done
echo "fuzz: $round rounds, no failure"
