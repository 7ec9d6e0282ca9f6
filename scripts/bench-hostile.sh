#!/usr/bin/env bash
# Hostile input against the CLI: each file is generated, analyzed with
# `hindsight analyze`, and printed with its wall time, peak memory, exit
# status and the diagnostic that must name the problem. Figures, not
# assertions (tests/tests/robustness.rs holds small versions as tests);
# a missing diagnostic or a crash is marked FAIL and the script exits 1.
#
#     bash scripts/bench-hostile.sh            # full sizes (about 1.5 GB of files)
#     bash scripts/bench-hostile.sh small      # a tenth of each
set -euo pipefail
cd "$(dirname "$0")/.."
scale=1
[ "${1:-}" = small ] && scale=10
dir="${TMPDIR:-/tmp}/hindsight-hostile/scale-$scale"
mkdir -p "$dir"
cargo build --quiet --release -p hindsight-cli --bin hindsight
[ -x /usr/bin/time ] || { echo "bench-hostile: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }

SCALE=$scale DIR=$dir python3 - <<'PY'
import os, random
scale = int(os.environ["SCALE"]); d = os.environ["DIR"]
def write(name, make):
    path = os.path.join(d, name)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            make(f)
write("line-200mb.txt", lambda f: f.write(b"$ vllm serve m --port 8000 > v.log 2>&1 &\n" + b"A" * (200 * 2**20 // scale) + b"\nThe server is up.\n"))
write("empty-10m.txt", lambda f: f.write(b"\n" * (10_000_000 // scale)))
write("nested-100k.json", lambda f: f.write(b"[" * 100_000 + b"]" * 100_000))
def nul(f):
    chunk = b"\0" * (16 * 2**20)
    for _ in range(64 // scale):
        f.write(chunk)
write("nul-1gb.bin", nul)
write("ansi-bomb.txt", lambda f: f.write((b"\x1b[31m" * 1000 + b"x\r" * 1000 + b"\n") * (20_000 // scale)))
def invalid(f):
    line = "$ curl -s http://127.0.0.1:8000/v1/models".encode()
    for i in range(len(line) + 1):
        f.write(line[:i] + b"\xff\xfe" + line[i:] + b"\n")
    f.write(b'{"object":"list","data":[]}\n')
write("invalid-utf8.txt", invalid)
def truncated(f):
    random.seed(1)
    base = b'{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"vllm serve m --port 8000"}}]}}'
    for _ in range(200_000 // scale):
        f.write(base[: random.randint(1, len(base) - 1)] + b"\n")
write("truncated.jsonl", truncated)
write("bidi.txt", lambda f: f.write("$ rm -rf /tmp/build\u202e\u200bgol.txt && vllm serve m --port 8000 &\nThe server is up.\n".encode()))
PY

# file | the diagnostic that must name it
cases=(
  "line-200mb.txt|only its first 64 KiB were examined"
  "empty-10m.txt|nothing in this input was recognised"
  "nested-100k.json|nothing was extracted"
  "nul-1gb.bin|NUL bytes"
  "ansi-bomb.txt|nothing in this input was recognised"
  "invalid-utf8.txt|invalid UTF-8"
  "truncated.jsonl|more like \"malformed JSON record skipped"
  "bidi.txt|do not show"
)
status=0
printf '%-18s %10s %8s %10s %5s  %s\n' file MB seconds "peak MB" exit diagnostic
for case in "${cases[@]}"; do
  file=${case%%|*}; want=${case#*|}
  path="$dir/$file"
  set +e
  /usr/bin/time -f "%e %M" -o "$dir/time" target/release/hindsight analyze "$path" > "$dir/out.txt" 2> "$dir/err.txt"
  code=$?
  set -e
  read -r wall rss < "$dir/time"
  mb=$(awk -v b="$(stat -c %s "$path")" 'BEGIN { printf "%.1f", b / 1048576 }')
  # Exit 0 (nothing found) or 1 (findings): anything else is a crash.
  if [ "$code" -le 1 ] && grep -qF "$want" "$dir/out.txt"; then
    verdict=ok
  else
    verdict=FAIL; status=1
  fi
  printf '%-18s %10s %8s %10s %5s  %s: %s\n' "$file" "$mb" "$wall" "$((rss / 1024))" "$code" "$verdict" "$want"
done
exit $status
