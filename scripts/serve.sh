#!/usr/bin/env bash
# Serves the hindsight page at http://127.0.0.1:8080 with the seed example
# loaded, after installing whatever is missing (see scripts/setup.sh serve).
# Extra arguments go to `trunk serve`.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$HOME/.cargo/bin:$PATH"

bash scripts/setup.sh serve

echo "==> trunk serve (http://127.0.0.1:8080; Ctrl-C stops it)"
exec trunk serve --release --address 127.0.0.1 --port 8080 "$@"
