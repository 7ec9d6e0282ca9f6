#!/usr/bin/env bash
# Coverage-guided fuzzing of every target in fuzz/ (cargo-fuzz, libFuzzer).
#
#     bash scripts/fuzz.sh [SECONDS-PER-TARGET] [TARGET...]
#
# Needs nightly (`rustup toolchain install nightly`) and cargo-fuzz
# (`cargo install cargo-fuzz --locked`); the product and CI build on stable
# and only replay what this finds (tests/tests/fuzz_corpus.rs). Each target
# runs for the given seconds (default 600) or 10 million executions,
# whichever comes first, without sanitizers (the code has no unsafe: `-s
# none` is several times faster). Seeds are the inputs of examples/; what a
# run finds grows fuzz/work/<target>/ (not in git); inputs that reach a
# coverage edge fuzz/corpus/<target>/ does not are added to it (in git,
# replayed on stable). A crash is left in fuzz/artifacts/<target>/ to become a
# regression file in fuzz/regressions/<target>/. Prints executions,
# coverage, features, seconds and saved inputs per target.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(detect_parse condense shell analyze config hook share_link saved_state)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seed() {
    local target=$1 dir=$2
    mkdir -p "$dir"
    case $target in
    config)
        find examples tests crates -name 'hindsight*.toml' -exec cp {} "$dir/" \; 2>/dev/null || true
        printf '[rules]\nignore = ["port-unchecked"]\n[hook]\nmode = "nudge"\n' > "$dir/seed.toml"
        ;;
    hook)
        printf '\x00{"hook_event_name":"Stop","session_id":"s","transcript_path":"/nonexistent","cwd":"/tmp"}' > "$dir/claude"
        printf '\x01{"hook_event_name":"Stop","session_id":"s","transcript_path":"/nonexistent"}' > "$dir/codex"
        printf '\x02{"hook_event_name":"AfterAgent","session_id":"s","transcript_path":"/nonexistent"}' > "$dir/gemini"
        ;;
    saved_state)
        # Stored documents as the page writes them: sources, rules, view.
        printf '{"sources":[{"name":"t.txt","format":"claude-code","text":"$ vllm serve m --port 8001\\n"}],"config":{"ignore":["port-unchecked"],"severity":{"ranks-uncounted":"error"}},"view":{"theme":"dark","show_secrets":false,"search":"port"}}' > "$dir/state.json"
        printf '{"sources":[{"name":"big.log","text":null},{"name":"x","format":"nope","text":""}]}' > "$dir/dropped.json"
        ;;
    share_link)
        # The body deflates its input into a link, so a saved document
        # (JSON) is the likeliest to decode; a fragment's base64url too.
        printf '{"sources":[{"name":"s.log","format":"vllm-log","text":"INFO:     Uvicorn running on http://0.0.0.0:8000\\n"}],"config":{}}' > "$dir/payload.json"
        printf 'q1YqTs4vSlWyiq5WSs7PL8rJTMxLLVKyUkpNzCgpSsxLycxLV6rVUUorys8tSM0rAQoqxdYCAA' > "$dir/fragment"
        ;;
    *)
        # Inputs of examples/ (not their expectations), cut to 4 KiB (the -max_len): the
        # fuzzer mutates small inputs far faster.
        find examples -type f ! -name expected.json ! -name report.json ! -name README.md |
            while read -r file; do
                head -c 4096 "$file" > "$dir/$(echo "$file" | tr '/' '_')"
            done
        ;;
    esac
}

printf '%-14s %12s %10s %10s %8s %8s\n' target executions coverage features seconds saved
for target in "${targets[@]}"; do
    corpus=fuzz/corpus/$target
    # The fuzzer's own working corpus: every input that added a feature,
    # kept between runs (not in git), started from the saved one.
    working=fuzz/work/$target
    mkdir -p "$corpus" "$working" "fuzz/regressions/$target"
    seed "$target" "$work/seed-$target"
    log=$work/$target.log
    start=$(date +%s)
    (cd fuzz && cargo +nightly fuzz run -s none -O "$target" \
        "../$working" "../$corpus" "$work/seed-$target" -- \
        -max_total_time="$seconds" -runs=10000000 -max_len=4096 \
        -rss_limit_mb=4096 -timeout=30 -print_final_stats=1) > "$log" 2>&1 || {
        echo "fuzz target $target failed: see fuzz/artifacts/$target/" >&2
        tail -40 "$log" >&2
        exit 1
    }
    took=$(( $(date +%s) - start ))
    # The saved corpus gains only inputs that reach a coverage edge it does
    # not (-use_counters=0: edges, not hit counts), and keeps what it has,
    # so git sees a few additions per run and the stable replay stays light.
    binary=fuzz/target/x86_64-unknown-linux-gnu/release/$target
    "$binary" -merge=1 -use_counters=0 "$corpus" "$working" \
        > "$work/$target.merge" 2>&1
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
    saved=$(find "$corpus" -type f | wc -l)
    printf '%-14s %12s %10s %10s %8s %8s\n' "$target" "$runs" "$cov" "$ft" "$took" "$saved"
done
