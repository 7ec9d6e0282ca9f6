#!/usr/bin/env bash
# Native throughput and peak memory of `hindsight analyze` on a generated
# Claude Code session (default 1024 MB; `scripts/bench.sh 200` for 200 MB), or
# on a generated Codex rollout (`scripts/bench.sh 1024 codex`).
# Prints wall time, CPU time, MB/s and peak RSS. Figures, not assertions:
# run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb="${1:-1024}"
kind="${2:-claude}"
dir="${TMPDIR:-/tmp}/hindsight-bench"
case "$kind" in
  claude) file="$dir/session-${size_mb}mb.jsonl"; generator=gen-claude-session ;;
  codex) file="$dir/rollout-${size_mb}mb.jsonl"; generator=gen-codex-rollout ;;
  *) echo "bench: the second argument is claude or codex" >&2; exit 2 ;;
esac
mkdir -p "$dir"
cargo build --quiet --release -p hindsight-cli -p hindsight-tests --bin hindsight --bin "$generator"
if [ ! -s "$file" ]; then
  "target/release/$generator" "$file" "$size_mb"
fi
bytes=$(stat -c %s "$file")
if [ ! -x /usr/bin/time ]; then
  echo "bench: /usr/bin/time is missing (apt-get install time)" >&2
  exit 1
fi
for run in 1 2; do
  /usr/bin/time -f "%e %U %S %M" -o "$dir/time" target/release/hindsight analyze --format json "$file" >"$dir/report.json"
  read -r wall user sys rss <"$dir/time"
  awk -v b="$bytes" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v run="$run" 'BEGIN {
    mb = b / 1e6; cpu = u + s;
    printf "run %d: %.0f MB in %.2f s wall (%.0f MB/s), %.2f s CPU (%.0f MB/s per core), peak RSS %.0f MB\n",
      run, mb, w, mb / w, cpu, mb / (cpu > 0 ? cpu : 1), r / 1024 }'
done
echo "report: $(grep -c '"rule":' "$dir/report.json") findings, $(grep -c '"kind":' "$dir/report.json") checkpoints and phases"
