#!/usr/bin/env bash
# Timings of the live guard (`hindsight hook claude-code`) on a generated
# Claude Code session (default 50 MB; `scripts/bench-hook.sh 200` for 200 MB):
# the first call, which reads and condenses the whole transcript, then
# later calls, each after a new tool call and its result were appended (what
# a PostToolUse hook sees), and a Stop on a claim of success.
# Targets: the first call under 1 s, later calls under 100 ms. Figures, not
# assertions: run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb="${1:-50}"
dir="${TMPDIR:-/tmp}/hindsight-bench-hook"
mkdir -p "$dir"
cargo build --quiet --release -p hindsight-cli -p hindsight-tests --bin hindsight --bin gen-claude-session
source_file="$dir/session-${size_mb}mb.jsonl"
if [ ! -s "$source_file" ]; then
  target/release/gen-claude-session "$source_file" "$size_mb" >/dev/null
fi
session="$dir/live.jsonl"
cp "$source_file" "$session"
export HINDSIGHT_STATE_DIR="$dir/state"
rm -rf "$HINDSIGHT_STATE_DIR"

event() {
  printf '{"session_id":"bench","transcript_path":"%s","cwd":"%s","hook_event_name":"%s","tool_name":"Bash","stop_hook_active":false,"last_assistant_message":"%s"}' \
    "$session" "$dir" "$1" "${2:-}"
}

# Milliseconds of one hook call; its answer goes to $dir/answer.json.
timed() {
  local start end
  start=$(date +%s%N)
  event "$@" | target/release/hindsight hook claude-code >"$dir/answer.json"
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

append_call() {
  local n="$1"
  printf '%s\n' \
    "{\"type\":\"assistant\",\"sessionId\":\"bench\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_bench_$n\",\"name\":\"Bash\",\"input\":{\"command\":\"tail -5 /tmp/bench-$n.log\"}}]}}" \
    "{\"type\":\"user\",\"sessionId\":\"bench\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"toolu_bench_$n\",\"type\":\"tool_result\",\"content\":\"line $n\"}]}}" \
    >>"$session"
}

bytes=$(stat -c %s "$session")
echo "session: $((bytes / 1000000)) MB, $(wc -l <"$session") lines"
echo "first call (PostToolUse, whole transcript): $(timed PostToolUse) ms"
later=()
for n in 1 2 3 4 5 6 7 8 9 10; do
  append_call "$n"
  later+=("$(timed PostToolUse)")
done
echo "later calls (PostToolUse after one appended tool call): ${later[*]} ms"
echo "stop on \"The server is up.\": $(timed Stop 'The server is up.') ms ($(grep -o '"decision":"block"' "$dir/answer.json" >/dev/null && echo refused || echo let through))"
echo "state: $(du -sh "$HINDSIGHT_STATE_DIR" | cut -f1) in $HINDSIGHT_STATE_DIR"
