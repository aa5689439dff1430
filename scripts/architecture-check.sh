#!/usr/bin/env bash
# docs/ARCHITECTURE.md's dependency table names exactly each target's direct dependencies in
# Package.swift (scripts/lib/architecture_table.py); exit 1 names every row that differs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
dump="$(mktemp)"
trap 'rm -f "$dump"' EXIT
SIGNERKIT_FUZZ=1 swift package dump-package >"$dump"
python3 "$root/scripts/lib/architecture_table.py" "$dump" docs/ARCHITECTURE.md
