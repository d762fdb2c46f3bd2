# Shell helpers shared by scripts/run.sh and scripts/test.sh. Sourced, not run:
#   . "$ROOT/scripts/lib.sh"

# Debian packages the build needs besides Rust: the pg_query crate's build script runs bindgen,
# which loads libclang, and prost-build, which uses protoc when it is there; clang also brings a C
# compiler, a linker and the C library headers for compiling libpg_query (and for rustc to link).
BUILD_PACKAGES=(libclang-dev clang protobuf-compiler)

# Runs a command as root: directly when we are root, otherwise through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else echo "need root to run: $*" >&2; return 1
    fi
}

# Prints those of the given Debian packages that are not installed, one per line (needs dpkg-query).
missing_packages() {
    local p status
    for p in "$@"; do
        status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
        case "$status" in
            *" ok installed") ;;
            *) printf '%s\n' "$p" ;;
        esac
    done
}

# Installs the given Debian packages: apt-get update, then apt-get install without recommended
# packages and without questions.
apt_install() {
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"
}
