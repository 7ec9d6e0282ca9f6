#!/usr/bin/env bash
# Prints what the web page downloads, file by file, raw and gzipped (gzip
# -9, as a static server's precompressed files would be), and the total
# against the page's budget. A figure for the issue notes, not a gate: it
# never fails on size.
#
#   scripts/page-size.sh          # reads dist/ (run `trunk build --release` first)
#   scripts/page-size.sh DIR      # another build's output
set -euo pipefail

dir="${1:-dist}"
budget_kb=400
if ! compgen -G "$dir/*.wasm" >/dev/null; then
    echo "page-size: no .wasm in $dir (run: trunk build --release)" >&2
    exit 1
fi
total_raw=0
total_gz=0
printf '%-44s %10s %10s\n' "file" "raw (B)" "gzip (B)"
for file in "$dir"/*; do
    [ -f "$file" ] || continue
    case "$file" in
        *.wasm | *.js | *.css | *.html | *.svg) ;;
        *) continue ;;
    esac
    raw=$(stat -c %s "$file")
    gz=$(gzip -9c "$file" | wc -c)
    total_raw=$((total_raw + raw))
    total_gz=$((total_gz + gz))
    printf '%-44s %10d %10d\n' "$(basename "$file")" "$raw" "$gz"
done
printf '%-44s %10d %10d\n' "total" "$total_raw" "$total_gz"
awk -v gz="$total_gz" -v budget="$budget_kb" 'BEGIN {
    kb = gz / 1000
    if (kb <= budget) printf "page: %.1f KB gzipped, within the %d KB budget\n", kb, budget
    else printf "page: %.1f KB gzipped, %.1f KB over the %d KB budget\n", kb, kb - budget, budget
}'
