#!/usr/bin/env bash
# Runs every test of hindsight, after installing whatever is missing
# (scripts/setup.sh test). Stops at the first failing step and exits non-zero.
#
#   formatting, clippy (native and wasm32), native tests (core, CLI, golden
#   examples), the scan's JSON lines queried in DuckDB, the wasm package's tests and the web page's component tests in
#   headless Chromium and Firefox, the package's npm build and TypeScript
#   declarations, the web page's release build, and the browser end-to-end
#   test of that page.
#
# All cargo builds share ./target (or $CARGO_TARGET_DIR).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$HOME/.cargo/bin:$PATH"
root="$PWD"
started=$SECONDS

bash scripts/setup.sh test

# wasm-pack must use these drivers, never download one.
CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver || true)}"
GECKODRIVER="${GECKODRIVER:-$(command -v geckodriver || true)}"
[ -x "$CHROMEDRIVER" ] || { echo "test: chromedriver not found" >&2; exit 1; }
[ -x "$GECKODRIVER" ] || { echo "test: geckodriver not found" >&2; exit 1; }
export CHROMEDRIVER GECKODRIVER
# Seconds a browser gets for the whole wasm test suite (debug build, slow CI).
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-180}"
# Fresh CI builds gain nothing from incremental compilation, and full debug
# info only costs compile and link time there (line numbers are kept).
if [ "${CI:-}" = true ]; then
    export CARGO_INCREMENTAL=0
    export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}"
fi
target_dir="${CARGO_TARGET_DIR:-$root/target}"

summary=()
number=0

banner() {
    printf '\n%s\n== %s\n%s\n' "$(printf '=%.0s' {1..78})" "$*" "$(printf '=%.0s' {1..78})"
}

print_summary() {
    printf '\n'
    printf '%s\n' "${summary[@]}"
}

# run NAME COMMAND...: one step; stops everything when it fails.
run() {
    local name="$1" begun=$SECONDS status=0
    shift
    number=$((number + 1))
    banner "[$number] $name"
    printf '$ %s\n' "$*"
    "$@" || status=$?
    local took=$((SECONDS - begun))
    if [ "$status" -ne 0 ]; then
        summary+=("FAILED  [$number] $name (exit $status, ${took}s)")
        banner "FAILED: [$number] $name (exit $status)"
        print_summary
        exit "$status"
    fi
    summary+=("ok      [$number] $name (${took}s)")
}

# skip NAME REASON: a step whose files are not in this checkout.
skip() {
    number=$((number + 1))
    banner "[$number] $1: SKIPPED ($2)"
    summary+=("SKIPPED [$number] $1 ($2)")
}

# The npm package as consumers get it: built for Node, its declarations must
# type the API, and it must give the seed example's golden report.
npm_package() {
    local out="$target_dir/hindsight-wasm-npm"
    wasm-pack build --mode no-install --dev --target nodejs --out-dir "$out" \
        crates/hindsight-wasm --locked &&
        node crates/hindsight-wasm/tests/npm-package.mjs "$out"
}

e2e() {
    (cd tests/e2e && node --test)
}

run "cargo fmt --check" cargo fmt --all --check
run "clippy (native, all targets)" \
    cargo clippy --workspace --all-targets --locked -- -D warnings
# --all-targets takes in the browser tests (crates/hindsight-wasm/tests),
# which only compile for wasm32; one invocation checks the dependencies once.
run "clippy (wasm32, all targets)" \
    cargo clippy --locked --target wasm32-unknown-unknown \
    -p hindsight-core -p hindsight-wasm -p hindsight-web --all-targets -- -D warnings
run "cargo test (native)" cargo test --workspace --locked
# The scan's JSON lines, loaded into DuckDB: rules fired most, per host.
duckdb_scan() {
    cargo build --quiet --locked -p hindsight-cli &&
        "$target_dir/duckdb-venv/bin/python" tests/duckdb/rules_per_host.py \
            "$target_dir/debug/hindsight" examples
}
run "scan JSON lines in DuckDB (tests/duckdb)" duckdb_scan
run "wasm-pack test (headless Chromium)" \
    wasm-pack test --mode no-install --headless --chrome --chromedriver "$CHROMEDRIVER" \
    crates/hindsight-wasm --locked
run "wasm-pack test (headless Firefox)" \
    wasm-pack test --mode no-install --headless --firefox --geckodriver "$GECKODRIVER" \
    crates/hindsight-wasm --locked
# The page's components mounted in the same browsers (web/src/tests.rs).
run "wasm-pack test web (headless Chromium)" \
    wasm-pack test --mode no-install --headless --chrome --chromedriver "$CHROMEDRIVER" \
    web --locked
run "wasm-pack test web (headless Firefox)" \
    wasm-pack test --mode no-install --headless --firefox --geckodriver "$GECKODRIVER" \
    web --locked
run "npm package (wasm-pack build, .d.ts, Node)" npm_package
if [ -f Trunk.toml ] && [ -f web/index.html ]; then
    run "trunk build --release" trunk build --release
    # What the page downloads, against its budget (a figure, not a gate).
    run "page size (scripts/page-size.sh)" scripts/page-size.sh dist
else
    skip "trunk build --release" "no Trunk.toml or web/index.html"
fi
if compgen -G 'tests/e2e/*.test.*' >/dev/null; then
    run "browser e2e (tests/e2e: node --test)" e2e
else
    skip "browser e2e (tests/e2e: node --test)" "no tests/e2e/*.test.* files"
fi

elapsed=$((SECONDS - started))
banner "all steps passed in $((elapsed / 60))m $((elapsed % 60))s"
print_summary
