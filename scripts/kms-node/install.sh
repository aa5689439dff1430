#!/usr/bin/env bash
# Creates the Python venv for the local AWS KMS of the tests (scripts/kms-node/server.py): ministack,
# cryptography and botocore, pinned in requirements.txt beside this script. Test tooling only.
#
# Usage: scripts/kms-node/install.sh        (venv at ${SIGNERKIT_KMS_VENV:-<repo>/.build/kms-venv})
# Idempotent: a venv whose stamp matches requirements.txt is left alone. PYTHON picks the interpreter.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${SIGNERKIT_KMS_VENV:-$root/.build/kms-venv}"
case "$venv" in /*) ;; *) venv="$root/$venv" ;; esac
source "$root/scripts/lib/pinned-venv.sh"
install_pinned_venv kms-node "$venv" "$here/requirements.txt" \
    -c "import ministack.services.kms, cryptography, botocore.auth"
