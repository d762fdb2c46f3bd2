#!/usr/bin/env bash
# The run command: installs what the build needs when it is missing (Debian packages
# BUILD_PACKAGES of scripts/lib.sh, with apt-get as root or through sudo), then builds and starts
# threadgres in the release profile. Arguments go to the server:
#
#   bash scripts/run.sh                          # 127.0.0.1:5433, trust authentication
#   bash scripts/run.sh --port 6000 --log-level debug
#
# Idempotent: once the packages are there it installs nothing and prints nothing of its own, and
# it is the same as `cargo run --release -- ARGS`.
#
# Environment:
#   SKIP_INSTALL=1   do not install system packages
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

if [ "${SKIP_INSTALL:-0}" != "1" ]; then
    if command -v dpkg-query >/dev/null 2>&1; then
        mapfile -t missing < <(missing_packages "${BUILD_PACKAGES[@]}")
        if [ "${#missing[@]}" -gt 0 ]; then
            printf '==> installing %s (needed to build threadgres)\n' "${missing[*]}" >&2
            apt_install "${missing[@]}" >&2
        fi
    else
        echo "no dpkg: the build needs libclang, a C compiler and protoc (${BUILD_PACKAGES[*]} on Debian)" >&2
    fi
fi

# rustup's installer puts cargo in ~/.cargo/bin, on PATH only from the next login on
if ! command -v cargo >/dev/null 2>&1 && [ -x "${CARGO_HOME:-${HOME:-/nonexistent}/.cargo}/bin/cargo" ]; then
    PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
fi
command -v cargo >/dev/null 2>&1 || { echo "cargo not found: install Rust (https://rustup.rs)" >&2; exit 1; }

cd "$ROOT"
exec cargo run --release -- "$@"
