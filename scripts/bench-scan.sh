#!/usr/bin/env bash
# Benchmark of `hindsight scan` over generated Claude Code sessions.
#
# Generates N sessions (default 10,000) laid out like ~/.claude/projects,
# derived from the Claude Code cases in examples/ (session ids, ports and
# paths varied per session; one in ten has a sub-agent file, one in five a
# server log its commands name), scans them, and prints files per second and
# peak memory. Usage:
#
#   scripts/bench-scan.sh [N] [extra scan flags...]
#
# HINDSIGHT=path/to/hindsight skips the release build. The temporary tree is
# removed afterwards (KEEP=1 keeps it).
set -euo pipefail

cd "$(dirname "$0")/.."
n="${1:-10000}"
shift || true

if [[ -z "${HINDSIGHT:-}" ]]; then
    cargo build --release --quiet -p hindsight-cli
    HINDSIGHT="$PWD/target/release/hindsight"
fi

tree="$(mktemp -d -t hindsight-bench-XXXXXX)"
if [[ -z "${KEEP:-}" ]]; then
    trap 'rm -rf "$tree"' EXIT
fi

python3 - "$tree" "$n" <<'EOF'
import os, sys, uuid, random

root, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
templates = [
    ("examples/seed-claude-code/session.jsonl", "examples/seed-claude-code/sglang_eagle3_aqmedai.log", "sglang_eagle3_aqmedai.log"),
    ("examples/claude-code-failed-build-then-launch/session.jsonl", None, None),
    ("examples/diligent-claude-code-vllm-tp2/session.jsonl", None, None),
]
texts = [(open(t).read(), open(l).read() if l else None, name) for t, l, name in templates]
files = 0
for i in range(n):
    text, log, log_name = texts[i % len(texts)]
    project = os.path.join(root, "projects", f"-home-dev-proj-{i % 100:03d}")
    os.makedirs(project, exist_ok=True)
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    port = str(20000 + i % 40000)
    body = (text.replace("5b1f0c7e-3d2a-4c1b-9f6e-2a7d8c9e0f13", sid)
                .replace(":8000", ":" + port).replace("--port 8000", "--port " + port))
    if log is not None and i % 5 == 0:
        # A log of its own, named by the session's commands.
        own = f"run-{i}.log"
        body = body.replace(log_name, own)
        with open(os.path.join(project, own), "w") as f:
            f.write(log)
        files += 1
    with open(os.path.join(project, sid + ".jsonl"), "w") as f:
        f.write(body)
    files += 1
    if i % 10 == 3:
        sub = os.path.join(project, sid, "subagents")
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, "agent-a1b2c3.jsonl"), "w") as f:
            f.write(texts[2][0])
        files += 1
print(f"generated {n} sessions, {files} files", file=sys.stderr)
with open(os.path.join(root, "files"), "w") as f:
    f.write(str(files))
EOF

files="$(cat "$tree/files")"
bytes="$(du -sb "$tree/projects" | cut -f1)"
echo "tree: $files files, $((bytes / 1024 / 1024)) MiB, $(nproc) cores" >&2

measure() {
    local label="$1"
    shift
    local log="$tree/time.log"
    local start end
    start="$(date +%s.%N)"
    if [[ -x /usr/bin/time ]]; then
        /usr/bin/time -v -o "$log" "$@" >"$tree/out" 2>"$tree/err" || true
    else
        "$@" >"$tree/out" 2>"$tree/err" || true
    fi
    end="$(date +%s.%N)"
    local rss="n/a"
    if [[ -f "$log" ]]; then
        rss="$(awk -F': ' '/Maximum resident set size/ {printf "%.1f MiB", $2 / 1024}' "$log")"
    fi
    awk -v label="$label" -v files="$files" -v s="$start" -v e="$end" -v rss="$rss" \
        'BEGIN { t = e - s; printf "%-22s %6.2f s  %8.0f files/s  peak RSS %s\n", label, t, files / t, rss }'
}

measure "scan (summary)" "$HINDSIGHT" scan --no-progress "$@" "$tree/projects"
head -4 "$tree/out" >&2
measure "scan --format jsonl" "$HINDSIGHT" scan --no-progress --format jsonl "$@" "$tree/projects"
echo "jsonl: $(wc -l <"$tree/out") lines, $(($(wc -c <"$tree/out") / 1024 / 1024)) MiB" >&2
if [[ -s "$tree/err" ]]; then
    echo "stderr:" >&2
    head -5 "$tree/err" >&2
fi
