#!/usr/bin/env bash
# `signerkit typed-data hash --jsonl` against eth-account (PyPI), in the same run, on a file of 20,000
# identical Ronin Order lines: per-line times and ratios, digests checked equal.
#
# Usage: Benchmarks/eth-account/compare.sh [--lines N] [--rounds N]
# Builds signerkit in release mode and the project's Python test venv (scripts/evm-node/install.sh, which
# pins eth-account) if needed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
lines=20000
rounds=5
while [[ $# -gt 0 ]]; do
    case "$1" in
        --lines) lines="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        *) echo "usage: Benchmarks/eth-account/compare.sh [--lines N] [--rounds N]" >&2; exit 64 ;;
    esac
done
cd "$root"
swift build -c release --product signerkit >&2
bash scripts/evm-node/install.sh
venv="${SIGNERKIT_EVM_VENV:-$root/.build/evm-venv}"
file="$(mktemp "${TMPDIR:-/tmp}/signerkit-ronin-XXXXXX.jsonl")"
trap 'rm -f "$file"' EXIT
line="$(tr -d '\n' <"$root/Tests/SignerKitTestSupport/Vectors/ronin_order.json")"
for ((i = 0; i < lines; i++)); do printf '%s\n' "$line"; done >"$file"
"$venv/bin/python" "$here/compare.py" "$file" "$(swift build -c release --show-bin-path)/signerkit" --rounds "$rounds"
