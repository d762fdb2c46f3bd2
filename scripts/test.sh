#!/usr/bin/env bash
# The one test command: installs what is missing, builds threadgres, runs the
# Rust tests and the integration tests (tests/py) against threadgres and a
# PostgreSQL 15 that the tests start themselves.
#
#   bash scripts/test.sh                 # everything
#   bash scripts/test.sh -k pg15         # extra arguments go to pytest
#
# Environment:
#   SKIP_INSTALL=1     do not install system or Python packages
#   SKIP_CARGO=1       do not build or run cargo (use THREADGRES_BIN as given)
#   THREADGRES_BIN     binary for the integration tests (default target/release/threadgres)
#   TEST_VENV          Python virtualenv for the tests (default tests/py/.venv)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

log() { printf '\n==> %s\n' "$*"; }

# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

APT_PACKAGES=(postgresql-15 postgresql-client-15 openssl "${BUILD_PACKAGES[@]}")

install_system_packages() {
    command -v dpkg-query >/dev/null 2>&1 || { echo "no dpkg: install ${APT_PACKAGES[*]} yourself" >&2; return 0; }
    local missing=()
    mapfile -t missing < <(missing_packages "${APT_PACKAGES[@]}")
    if [ "${#missing[@]}" -eq 0 ]; then
        log "system packages present"
        return 0
    fi
    log "installing ${missing[*]}"
    apt_install "${missing[@]}"
}

PYTHON_BIN=""
setup_python() {
    local venv="${TEST_VENV:-$ROOT/tests/py/.venv}"
    local base="${PYTHON:-python3}"
    local check='
import sys, importlib.metadata as md
want = {}
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if "==" in line:
        name, ver = line.split("==")
        want[name.split("[")[0].strip()] = ver.strip()
bad = []
for name, ver in want.items():
    try:
        if md.version(name) != ver:
            bad.append(name)
    except md.PackageNotFoundError:
        bad.append(name)
sys.exit(1 if bad else 0)
'
    if [ ! -x "$venv/bin/python" ]; then
        log "creating virtualenv $venv"
        if ! "$base" -m venv "$venv"; then
            # Debian's system python needs python3-venv for ensurepip
            rm -rf "$venv"
            [ "${SKIP_INSTALL:-0}" = "1" ] && return 1
            APT_PACKAGES=(python3-venv)
            install_system_packages
            "$base" -m venv "$venv"
        fi
    fi
    PYTHON_BIN="$venv/bin/python"
    if "$PYTHON_BIN" -c "$check" tests/py/requirements.txt; then
        log "python packages present"
    elif [ "${SKIP_INSTALL:-0}" = "1" ]; then
        echo "python packages missing in $venv and SKIP_INSTALL=1" >&2
        return 1
    else
        log "installing python packages (tests/py/requirements.txt)"
        "$PYTHON_BIN" -m pip install --disable-pip-version-check -q -r tests/py/requirements.txt
    fi
}

if [ "${SKIP_INSTALL:-0}" != "1" ]; then
    install_system_packages
fi
setup_python

cargo_test_rc=0
if [ "${SKIP_CARGO:-0}" != "1" ]; then
    command -v cargo >/dev/null 2>&1 || { echo "cargo not found: install Rust (https://rustup.rs)" >&2; exit 1; }
    log "cargo build --release"
    cargo build --release
    log "cargo fmt --check, cargo clippy -D warnings"
    cargo fmt --all -- --check || cargo_test_rc=$?
    if cargo clippy --version >/dev/null 2>&1; then
        cargo clippy --release --all-targets -- -D warnings || cargo_test_rc=$?
    fi
    log "cargo test (release profile: reuses the build above)"
    # a failing Rust test does not stop the integration tests; the exit status reports both
    cargo test --release || cargo_test_rc=$?
    log "model checks of the notification hub, the transaction manager and row locks, and the WAL (shuttle)"
    cargo test --release --features shuttle --lib -- notify::model txn::model storage::lock_model wal::model || cargo_test_rc=$?
fi

export THREADGRES_BIN="${THREADGRES_BIN:-$ROOT/target/release/threadgres}"
export THREADGRES_NO_BUILD=1

log "pytest tests/py (THREADGRES_BIN=$THREADGRES_BIN)"
set +e
"$PYTHON_BIN" -m pytest tests/py -p no:cacheprovider "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "pytest collected no tests: treating as a failure" >&2
    rc=1
fi
if [ "$cargo_test_rc" -ne 0 ]; then
    echo "cargo test failed (exit $cargo_test_rc)" >&2
    [ "$rc" -eq 0 ] && rc=1
fi
[ "$rc" -eq 0 ] && log "all tests passed" || log "FAILED (pytest exit $rc, cargo test exit $cargo_test_rc)"
exit "$rc"
