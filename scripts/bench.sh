#!/usr/bin/env bash
# Native throughput and peak memory of `hindsight analyze` on a generated
# Claude Code session (default 1024 MB; `scripts/bench.sh 200` for 200 MB).
# Prints wall time, CPU time, MB/s and peak RSS. Figures, not assertions:
# run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb="${1:-1024}"
dir="${TMPDIR:-/tmp}/hindsight-bench"
file="$dir/session-${size_mb}mb.jsonl"
mkdir -p "$dir"
cargo build --quiet --release -p hindsight-cli -p hindsight-tests --bin hindsight --bin gen-claude-session
if [ ! -s "$file" ]; then
  target/release/gen-claude-session "$file" "$size_mb"
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
