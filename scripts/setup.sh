#!/usr/bin/env bash
# Installs what `scripts/serve.sh` or `scripts/test.sh` needs, skipping
# whatever is already there (a second run takes seconds).
#
#   bash scripts/setup.sh serve   # Rust wasm target, binaryen, wasm-bindgen-cli, trunk
#   bash scripts/setup.sh test    # the above plus clippy/rustfmt, chromium,
#                                 # chromium-driver, firefox-esr, node/npm,
#                                 # wasm-pack, geckodriver, the e2e npm deps,
#                                 # and DuckDB (pip, in a venv under target/)
#
# Sources: Debian packages (apt-get), crates.io (cargo install, cargo fetch),
# the npm registry (npm ci) and PyPI (pip, DuckDB). No prebuilt binaries are downloaded.
# Needs a Rust toolchain with rustup and cargo (rust-version in Cargo.toml).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$HOME/.cargo/bin:$PATH"

mode="${1:-test}"
case "$mode" in
serve | test) ;;
*)
    echo "usage: bash scripts/setup.sh [serve|test]" >&2
    exit 2
    ;;
esac

step() { printf '==> %s\n' "$*"; }
have() { printf '    ok: %s\n' "$*"; }
die() {
    printf 'setup: %s\n' "$*" >&2
    exit 1
}

# Versions that must match exactly. wasm-bindgen's CLI must be the version
# Cargo.lock pins for the wasm-bindgen crate, or the generated glue breaks.
wasm_bindgen_version="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)"
[ -n "$wasm_bindgen_version" ] || die "cannot find the wasm-bindgen version in Cargo.lock"
trunk_version="0.21.14"

# --- Rust -------------------------------------------------------------------
step "Rust toolchain"
command -v cargo >/dev/null || die "cargo not found; install Rust (rustup) first"
command -v rustup >/dev/null || die "rustup not found; install Rust with rustup first"
have "$(rustc --version)"

step "Rust target wasm32-unknown-unknown"
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    have "installed"
else
    rustup target add wasm32-unknown-unknown
fi

if [ "$mode" = test ]; then
    step "Rust components clippy, rustfmt"
    installed_components="$(rustup component list --installed)"
    for component in clippy rustfmt; do
        if grep -q "^$component" <<<"$installed_components"; then
            have "$component"
        else
            rustup component add "$component"
        fi
    done
fi

# --- Debian packages ----------------------------------------------------------
packages=(binaryen)
# Trunk runs a Python post-build hook (Trunk.toml).
command -v python3 >/dev/null || packages+=(python3)
if [ "$mode" = test ]; then
    packages+=(chromium chromium-driver firefox-esr)
    command -v node >/dev/null || packages+=(nodejs)
    command -v npm >/dev/null || packages+=(npm)
fi
step "Debian packages: ${packages[*]}"
missing=()
for package in "${packages[@]}"; do
    if [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" = "install ok installed" ]; then
        have "$package"
    else
        missing+=("$package")
    fi
done
if [ "${#missing[@]}" -gt 0 ]; then
    command -v apt-get >/dev/null || die "apt-get not found; install these yourself: ${missing[*]}"
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || die "not root and no sudo; install these yourself: ${missing[*]}"
        sudo=(sudo)
    fi
    echo "    installing: ${missing[*]}"
    "${sudo[@]}" apt-get update
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

# --- cargo-installed tools ----------------------------------------------------
# tool_version BINARY: the first version number BINARY --version prints.
tool_version() {
    command -v "$1" >/dev/null || return 0
    "$1" --version 2>/dev/null | head -n 1 | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1 || true
}

# cargo_tool BINARY WANTED_VERSION|any INSTALL_ARGS...
cargo_tool() {
    local binary="$1" wanted="$2" found
    shift 2
    found="$(tool_version "$binary")"
    if [ -n "$found" ] && { [ "$wanted" = any ] || [ "$found" = "$wanted" ]; }; then
        have "$binary $found"
        return
    fi
    if [ -n "$found" ]; then
        echo "    $binary $found found, $wanted wanted: reinstalling"
    else
        echo "    $binary not found: installing"
    fi
    (
        set -x
        cargo install "$@"
    )
    found="$(tool_version "$binary")"
    [ -n "$found" ] || die "$binary still not on PATH after cargo install"
}

step "cargo tools"
# wasm-bindgen-cli is installed without --locked, with current compatible deps.
cargo_tool wasm-bindgen "$wasm_bindgen_version" --force "wasm-bindgen-cli@$wasm_bindgen_version"
cargo_tool trunk "$trunk_version" --locked --force "trunk@$trunk_version"
if [ "$mode" = test ]; then
    cargo_tool wasm-pack any --locked wasm-pack
    cargo_tool geckodriver any --locked geckodriver
fi

# --- crates for offline builds -----------------------------------------------
# Trunk builds with cargo --offline (Trunk.toml), so every crate in Cargo.lock
# must be in the local cache first. A no-op when they are.
step "crates in Cargo.lock (cargo fetch)"
cargo fetch --locked --quiet ||
    die "cargo fetch --locked failed: is Cargo.lock up to date with the Cargo.toml files?"
have "all in the local cache"

# --- npm dependencies of the browser e2e test ---------------------------------
if [ "$mode" = test ]; then
    step "npm dependencies of tests/e2e"
    if [ ! -f tests/e2e/package.json ]; then
        have "no tests/e2e/package.json: nothing to install"
    else
        [ -f tests/e2e/package-lock.json ] || die "tests/e2e/package-lock.json is missing (npm ci needs it)"
        stamp=tests/e2e/node_modules/.setup-lock.sha256
        wanted="$(sha256sum tests/e2e/package.json tests/e2e/package-lock.json | sha256sum | cut -d' ' -f1)"
        if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
            have "node_modules matches package-lock.json"
        else
            (cd tests/e2e && npm ci --no-audit --no-fund)
            echo "$wanted" >"$stamp"
        fi
    fi
fi

# --- DuckDB, for the scan hand-off test ----------------------------------------
# A virtual environment of its own (Debian's python3 refuses global pip
# installs), with the duckdb wheel from PyPI.
if [ "$mode" = test ]; then
    step "DuckDB (Python) for tests/duckdb"
    venv="${CARGO_TARGET_DIR:-$PWD/target}/duckdb-venv"
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import duckdb' 2>/dev/null; then
        have "duckdb $("$venv/bin/python" -c 'import duckdb; print(duckdb.__version__)')"
    else
        python3 -m venv "$venv" 2>/dev/null || {
            apt-get install -y python3-venv >/dev/null
            python3 -m venv "$venv"
        }
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check duckdb
        have "duckdb installed in $venv"
    fi
fi

step "setup ($mode) done"
