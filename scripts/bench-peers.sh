#!/usr/bin/env bash
# hindsight beside the tools a user would reach for instead, on the same
# inputs, on this machine, in one run: ripgrep (three literals counted),
# lnav (headless: index the log and count its lines with SQL), Drain3
# (log template mining) and claude-code-log (a session to HTML).
#
#   scripts/bench-peers.sh [RUNS] [small]
#
# Generates the inputs once (under $TMPDIR/hindsight-bench): a 500 MB SGLang
# log (8 ranks, batches, access lines), 200 MB vLLM and TGI logs, a 100 MB
# Claude Code ops session whose tool outputs are server log lines, and a
# 200 MB Codex rollout; `small` makes them 10x smaller. Installs the peers
# that are missing (apt: ripgrep, lnav; pip: drain3, claude-code-log), runs
# each tool and hindsight alternately RUNS times (default 3) and prints the
# median wall time, CPU time and peak memory of each, and each peer's time
# over hindsight's. Figures, never assertions: run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
scale=1
[ "${2:-}" = small ] && scale=10
dir="${TMPDIR:-/tmp}/hindsight-bench"
mkdir -p "$dir"

if [ ! -x /usr/bin/time ]; then
  echo "bench-peers: /usr/bin/time is missing (apt-get install time)" >&2
  exit 1
fi

# --- peers -----------------------------------------------------------------
apt_missing=()
command -v rg >/dev/null || apt_missing+=(ripgrep)
command -v lnav >/dev/null || apt_missing+=(lnav)
if [ "${#apt_missing[@]}" -gt 0 ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "bench-peers: installing ${apt_missing[*]}" >&2
  apt-get install -y -qq "${apt_missing[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "${apt_missing[@]}" >/dev/null 2>&1; } ||
    true
fi
python=python3
if ! $python -c 'import drain3' 2>/dev/null || ! command -v claude-code-log >/dev/null; then
  echo "bench-peers: installing drain3 and claude-code-log (pip)" >&2
  $python -m pip install -q drain3 claude-code-log >/dev/null 2>&1 || true
fi

# --- inputs ----------------------------------------------------------------
cargo build --quiet --release -p hindsight-cli -p hindsight-tests \
  --bin hindsight --bin gen-server-log --bin gen-claude-session --bin gen-codex-rollout
mb() { echo $(( $1 / scale )); }
sglang="$dir/sglang-$(mb 500)mb.log"
vllm="$dir/vllm-$(mb 200)mb.log"
tgi="$dir/tgi-$(mb 200)mb.log"
ops="$dir/ops-session-$(mb 100)mb.jsonl"
codex="$dir/rollout-$(mb 200)mb.jsonl"
[ -s "$sglang" ] || target/release/gen-server-log "$sglang" "$(mb 500)" sglang
[ -s "$vllm" ] || target/release/gen-server-log "$vllm" "$(mb 200)" vllm
[ -s "$tgi" ] || target/release/gen-server-log "$tgi" "$(mb 200)" tgi
[ -s "$ops" ] || target/release/gen-claude-session "$ops" "$(mb 100)" ops >/dev/null 2>&1
[ -s "$codex" ] || target/release/gen-codex-rollout "$codex" "$(mb 200)" >/dev/null 2>&1

cat >"$dir/drain.py" <<'PY'
import sys
from drain3 import TemplateMiner
miner = TemplateMiner()
with open(sys.argv[1], errors="replace") as f:
    for line in f:
        miner.add_log_message(line.rstrip("\n"))
print(len(miner.drain.clusters), "templates")
PY

# --- runs ------------------------------------------------------------------
# One measured run: prints "wall cpu peak_mb" (or "- - -" when it failed).
# Exit status 1 is success for a count that found nothing (rg -c).
measure() {
  local status=0
  /usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$@" >/dev/null 2>"$dir/stderr" || status=$?
  if [ "$status" -le 1 ] && [ -s "$dir/time" ] && ! grep -q "Command exited with non-zero status [^1]" "$dir/time"; then
    grep -v "Command exited" "$dir/time" >"$dir/time.ok"
    mv "$dir/time.ok" "$dir/time"
    awk '{ printf "%.2f %.2f %.0f\n", $1, $2 + $3, $4 / 1024 }' "$dir/time"
  else
    echo "- - -"
  fi
}

median() { sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { if (NR == 0 || v[1] == "-") print "-"; else print v[int((NR + 1) / 2)] }'; }

printf "%-22s %-34s %8s %8s %8s %10s\n" input tool "wall s" "cpu s" "peak MB" "x hindsight"
row() { # input-label tool-label file results...
  local label="$1" tool="$2" results="$3" base="$4"
  local wall cpu peak ratio
  wall=$(cut -d' ' -f1 <<<"$results" | median)
  cpu=$(cut -d' ' -f2 <<<"$results" | median)
  peak=$(cut -d' ' -f3 <<<"$results" | median)
  ratio="-"
  if [ "$wall" != "-" ] && [ -n "$base" ] && [ "$base" != "-" ]; then
    ratio=$(awk -v a="$wall" -v b="$base" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
  fi
  printf "%-22s %-34s %8s %8s %8s %10s\n" "$label" "$tool" "$wall" "$cpu" "$peak" "$ratio"
}

bench_input() { # label file peer-commands...
  local label="$1" file="$2"
  shift 2
  local size
  size=$(( $(stat -c %s "$file") / 1000000 ))
  declare -A results=()
  local tools=("hindsight analyze --format json")
  local peer
  for peer in "$@"; do tools+=("$peer"); done
  for _ in $(seq "$runs"); do
    for tool in "${tools[@]}"; do
      case "$tool" in
        "hindsight analyze --format json") out=$(measure target/release/hindsight analyze --format json "$file") ;;
        "rg -c (3 literals)")
          command -v rg >/dev/null || continue
          out=$(measure rg -c -e 'ready to roll' -e 'Decode batch' -e 'out of memory' "$file") ;;
        "lnav -n (index + count)")
          command -v lnav >/dev/null || continue
          out=$(measure lnav -n -c ';SELECT count(*) FROM all_logs' "$file") ;;
        "drain3 (templates, 1 run)")
          $python -c 'import drain3' 2>/dev/null || continue
          [ -n "${results[$tool]:-}" ] && continue
          out=$(measure $python "$dir/drain.py" "$file") ;;
        "claude-code-log (to HTML)")
          command -v claude-code-log >/dev/null || continue
          out=$(measure claude-code-log "$file" -o "$dir/session.html") ;;
      esac
      results[$tool]+="$out"$'\n'
    done
  done
  local base
  base=$(cut -d' ' -f1 <<<"${results["hindsight analyze --format json"]}" | median)
  for tool in "${tools[@]}"; do
    [ -n "${results[$tool]:-}" ] || { printf "%-22s %-34s %8s\n" "$label ($size MB)" "$tool" "not installed"; continue; }
    row "$label ($size MB)" "$tool" "$(sed '/^$/d' <<<"${results[$tool]}")" "$base"
  done
}

bench_input "sglang log" "$sglang" "rg -c (3 literals)" "lnav -n (index + count)"
bench_input "vllm log" "$vllm" "rg -c (3 literals)" "lnav -n (index + count)" "drain3 (templates, 1 run)"
bench_input "tgi log" "$tgi" "rg -c (3 literals)" "lnav -n (index + count)"
bench_input "ops session" "$ops" "claude-code-log (to HTML)"
bench_input "codex rollout" "$codex"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), $(uname -m)"
