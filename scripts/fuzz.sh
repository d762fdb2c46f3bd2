#!/usr/bin/env bash
# Fuzzes client input: the frontend protocol's decoder, the start-up packet, every type's text
# and binary input.
#
#   bash scripts/fuzz.sh [SECONDS] [CASES_PER_ROUND]     # property tests; defaults: 600, 5000
#   bash scripts/fuzz.sh --libfuzzer [SECONDS_PER_TARGET] [TARGET...]   # default: 300, all
#
# Property tests (src/sql/fuzz_tests.rs) run for the given time, with a new random seed each
# round and more cases per round than the suite runs. A failing input is shrunk by proptest and
# kept in src/sql/proptest-regressions/ (replayed first by every later run and by the suite):
# commit it with its fix.
#
# --libfuzzer runs the cargo-fuzz targets of fuzz/ (coverage-guided, with AddressSanitizer),
# each for the given time, starting from the seed corpus in fuzz/corpus/<target>/ (committed);
# what libFuzzer adds goes to fuzz/corpus-new/<target>/ and a crashing input to
# fuzz/artifacts/<target>/ (both ignored by git: a crash becomes a test with its fix). It
# installs what it needs: the nightly toolchain (cargo-fuzz's sanitizers need it) and
# cargo-fuzz from crates.io.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ "${1:-}" = "--libfuzzer" ]; then
    shift
    seconds="${1:-300}"
    [ $# -gt 0 ] && shift
    targets=("$@")
    if [ "${#targets[@]}" -eq 0 ]; then
        mapfile -t targets < <(ls fuzz/fuzz_targets | sed 's/\.rs$//')
    fi
    rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
    command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
    for t in "${targets[@]}"; do
        echo "== $t ($seconds s)"
        mkdir -p "fuzz/corpus-new/$t"
        cargo +nightly fuzz run "$t" "fuzz/corpus-new/$t" "fuzz/corpus/$t" -- \
            -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=4096 -print_final_stats=1
    done
    echo "fuzz: ${#targets[@]} targets, $seconds s each, no crash"
    exit 0
fi

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
